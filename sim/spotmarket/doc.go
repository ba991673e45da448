// Package spotmarket models the cloud side of a scenario: EC2 capacity pools
// and the spot market of one region. It answers launches (which pool, at
// what price, Ready after how long, or insufficient capacity), takes spot
// instances back with a two-minute notice, sends rebalance
// recommendations, and bills every instance per second along its pool's
// price path. It manages instances only: the autoscaler models map them to
// nodes and never see the market's state except through [Market.Launch],
// [Market.Available], [Market.Price] and the signals.
//
// # Using it
//
// The request, result and signal types are sim/cloud's, aliased here
// ([Offering], [LaunchRequest], [Signal], ...), so *Market satisfies the
// Cloud interfaces that sim/karpenter and sim/clusterautoscaler declare.
// [New] builds a [Market] for a region and its zones and registers it with
// the engine. Callers launch with [Market.Launch] (a synchronous answer at
// Now()), scale in with [Market.Terminate], and receive every
// [Signal] (RebalanceRecommendation, InterruptionNotice, Terminated) through
// [Market.Subscribe]. Subscribers are called synchronously from inside the
// market's engine events, after the market's own state is updated; they
// must not call Launch or Terminate there (the market panics): schedule an
// engine event and act from it. [Market.Stats] counts launch requests,
// insufficient-capacity errors, interruptions and rebalance
// recommendations, in total, per owner and per pool.
//
// # Pools and prices
//
// A pool is an [Offering]: (instance type, zone, capacity type), for every
// type in the catalogue and every market zone. On-demand and reserved pools
// cost the catalogue's on-demand list price (us-east-1 prices stand in for
// other regions). Spot pools exist for types with a Spot Advisor row in the
// region; their base price is on-demand x (1 - advisor savings), and in the
// stochastic model it drifts slowly and smoothly: base x (1 + d(t)), d a
// stationary Gauss-Markov process (standard deviation 5%, correlation time
// 2 days) sampled every 6 h and linear in between, kept between half the
// base and the on-demand price. [Market.CostUSD] integrates that path
// exactly, per second rounded up, at least 60 s for an instance that ended.
//
// # The stochastic model
//
// Regimes. Every spot pool is available, constrained or exhausted. It
// stays in a regime for a Weibull time (shape 0.6; medians 0.6 h, 0.3 h and
// 0.15 h) and then moves to one of the other two (available -> exhausted
// 0.2, else constrained; constrained -> exhausted 0.3, else available;
// exhausted -> available 0.4, else constrained), which keeps a pool
// available 59%, constrained 33% and exhausted 8% of the time. On-demand
// pools alternate available (median 500 h) and exhausted (median 15 min).
// An exhausted pool fails every launch with InsufficientInstanceCapacity; a
// constrained one fails half of them.
//
// Reclaims. An advisor band's midpoint p (2.5%, 7.5%, 12.5%, 17.5%, and
// 25% for ">20%") is read as the share of instances reclaimed in 30 days,
// a constant hazard lambda = -ln(1-p)/720 per hour (times HazardMultiplier).
// Shocks deliver a share S = 0.7 of it and an independent per-instance
// hazard the rest, (1-S) lambda x m(regime) / E[m], with m = 1, 3, 10 for
// available, constrained, exhausted and E[m] their time-weighted mean, so
// regimes move reclaims in time without changing how many there are. The
// per-instance hazards of a pool are one exponential clock per pool (the
// sum over its live instances), redrawn when its count or regime changes;
// when it rings, a random live instance is doomed.
//
// Shocks. Three levels of Poisson shocks: one instance family in one zone
// (1 per family per zone per 7 days, the family drawn at random), one zone
// (1 per zone per 14 days), the region (1 per 30 days). A shock hits each
// family with one uniform draw compared with each size's hit probability,
// so the sizes of a family share fate and a region shock hits a family in
// every zone alike. Hit probabilities are calibrated per pool so that each
// level delivers its weight (0.3, 0.2, 0.5) of S lambda: riskier bands are
// hit more often, not harder. A hit pool is exhausted for the shock's
// duration (Weibull shape 0.6, medians 30, 20 and 15 min) and loses on
// average 35% of its live instances (uniform 0.5x to 1.5x per shock), whose
// notices follow the shock after exponential delays of mean 60 s; the rest
// of the target is constrained, and a zone shock also constrains the hit
// types in the other zones.
//
// Signals. Every reclaim has an InterruptionNotice NoticeLead (2 min)
// before the Terminated signal. Of background reclaims, half get a
// rebalance recommendation early, log-uniform 17 min to 9 h before the
// notice (the decision is taken then, the notice follows), 30% get one
// together with the notice, 20% none; shock reclaims get theirs at the
// shock or with the notice. False alarms (a recommendation with no reclaim)
// come at 1.2 per background reclaim and, in a hit pool, to survivors at
// the rate that keeps the total at 2 recommendations per notice.
//
// # Pool depth
//
// A pool gives at most its depth of instances at once (depth.go,
// [DepthConfig]). A launch into a dry pool fails with
// InsufficientInstanceCapacity for that offering and goes on to the next,
// so N launches into one pool at one instant (an EC2 Fleet request for N)
// get min(N, depth). The depth is the pool's full depth scaled by its
// regime (available x1, constrained x Depth.Constrained = 0.1, exhausted
// 0) less what the run took: a launch takes one, a termination or reclaim
// gives one back, and what was taken decays back with time constant
// Depth.Refill (30 min: EC2 refills pools as other tenants release
// capacity; its advice for an ICE is to retry in a few minutes). The
// decay is applied lazily when the pool is touched: O(1) per launch and
// termination, no events, no scans.
//
// The full depth is drawn once per pool: Depth.Spot = 150 (Depth.OnDemand
// = 20,000) instances of a 4-vCPU type per zone, x (4/vCPU)^1.25 (larger
// sizes are scarcer, in instances and slightly in vCPUs), x 0.3 for
// accelerated types, x a further 0.03 for the newest (p4d, p5, p6, trn1,
// trn2, g6e), x 0.5 for metal, x a lognormal factor with sigma 0.7 from
// the pool's own stream (".../depth"). Reserved pools are unlimited, and
// so is every pool under ModelOff or with Depth.Unlimited. No dataset of
// pool depths exists; the numbers are chosen to reproduce what is
// documented and widely reported, and the tests in depth_test.go pin it
// over 20 seeds: a 200-instance burst into c5.xlarge in one zone falls
// short in 16 (partially filled in 16), the same burst over 20 types in
// three zones with price-capacity-optimized is filled in 20; the median
// spot depth is 398 for m5.large, 28 for m5.4xlarge, 3 for m5.24xlarge; a
// p5.48xlarge on-demand pool holds about two instances (AWS steers p5
// to Capacity Blocks), g5.48xlarge about 66, m5.large over 50,000.
//
// A request, for the counters, is one owner's launches at one instant:
// Karpenter launches a provisioning batch's NodeClaims together (upstream
// batches their CreateFleet calls into one fleet), the Cluster Autoscaler
// asks an ASG for N more at once. A request that got some instances and
// not others is a partial fulfilment ([Stats].PartialFulfilments). Per
// pool, [Counters] give the launches asked (Asked), obtained (Launches)
// and refused (InsufficientCapacityErrors, of them DepthRefusals for want
// of depth). A replay trace's depth line sets a pool's full depth.
//
// # Calibration (tests in calibration_test.go, fixed seeds)
//
//   - With shocks off, the share of instances reclaimed within 30 days is
//     0.024, 0.072, 0.125, 0.175, 0.250 for bands 0-4 (midpoints 0.025 to
//     0.25; 40,000 instances per band).
//   - With default correlation and pools of 10 instances, 31% of reclaim
//     events take several instances of one pool within 3 min (docs/models.md:
//     22-50%); about 0.33 for pools of 5, 0.22 for pools of 20. By
//     construction 95% of pairs of notices of one shock fall within 3 min
//     (docs/models.md: over 92%).
//   - Regime spells seen through [Market.Regime] have CV 1.64 to 1.71,
//     medians 0.18-0.68 h, p90 1.2-4.6 h and a longest of 72 h, over 60
//     pools for 60 days probed every 30 s (docs/models.md: Weibull shape about 0.6, medians
//     0.15-0.6 h, p90 up to 7 h, longest 80 h); spells in which a pool can
//     be launched into (not exhausted) have CV 1.28, median 2.9 h.
//   - About 2.0 rebalance recommendations per notice, 51% of notices with an
//     early one, 30% with one at the notice (docs/models.md: about 2 per notice).
//   - The correlation of one type's weekly reclaim counts in two zones came
//     out at 0.41 in a two-year run of 60 pools (docs/models.md: AZs correlate
//     about 0.4); a measurement made once to set the region weight, not a
//     test.
//
// # Joins
//
// A launch's node may never join the cluster: with probability
// [Config.Join].FailureShare (default 0.2%) the result says NeverJoins
// (the instance runs and is billed; its kubelet never registers), and of
// the others SlowShare (1%) become Ready SlowExtra (lognormal, median
// 3 min, p90 8 min) later than the launch latency. Both rates are
// assumptions (see [DefaultJoinFailureShare]); the scenario turns them off
// in the replay and off models unless it sets them. A [ScriptedEvent]'s
// JoinFailure raises the share for the launches it covers while it holds
// (the pools it selects, any capacity type unless it names them, and the
// [LaunchGroup]s it names): the bad AMI rollout. A request marked Joined
// (a node group's initial nodes) draws nothing. Join outcomes draw from
// their own stream, "spotmarket/join", one draw per launch and one more
// for a slow one, so the pools' streams are the same with or without them.
//
// # Replay and scripted events
//
// With Model [ModelReplay] a [Trace] (see [ReadTrace] for the CSV and JSON
// Lines format) sets pool states and prices and sends interruptions and
// recommendations; nothing else happens. With [ModelOff] every pool is
// available at its base price and nothing is reclaimed. In every model
// [Config.Events] apply: a [ScriptedEvent] forces a regime on the pools it
// selects (by type, family, zone, capacity type; on-demand pools too) for a
// while, and sends notices or recommendations to a share of their
// instances.
//
// # Subnets
//
// With [Market.SetSubnets] (the scenario's spec.network) every launch also
// needs addresses: an offering whose zone's best subnet (the one with the
// most free addresses, Karpenter's subnet provider's pick, used for ASGs
// too) has fewer than [Subnets.IPsPerNode] fails with
// InsufficientFreeAddressesInSubnet, counted apart from capacity errors; a
// launched instance holds its addresses until it ends. The kubelet takes
// the pods' addresses from the same [Subnets]. No draw of any random
// stream depends on it, so runs without subnets are unchanged.
//
// # Randomness and cost
//
// Each pool draws from its own streams, named from the pool
// ("spotmarket/pool/c5.large/us-east-1a/spot" for its reclaims, victims,
// launch failures and latencies; ".../regime" for its regime chain;
// ".../price" for its price path); each shock process from its own
// ("spotmarket/shock/region", "spotmarket/shock/zone/<zone>",
// "spotmarket/shock/family-zone/<zone>"). A pool's regime chain and price
// path are drawn lazily from time 0 in a fixed order, so they do not depend
// on when the pool is first used or looked at, and nothing a pool draws
// depends on other pools: adding a pool changes no other pool's history.
// Only spot pools with live instances get events (a regime move, about one
// per pool-hour, and their reclaim clock); shocks, about 52 a day in a
// three-zone region, cost two events each. Signal events allocate nothing.
//
// # What it does not capture
//
//   - Prices and capacity per zone come from regional data: the advisor band
//     and savings are the same in every zone, and only us-east-1 has
//     on-demand prices.
//   - The regime chain's transition split, the hazard multipliers per
//     regime, the shock rates, durations and sizes, the constrained-pool
//     failure rate, the rebalance split and the price drift are assumptions
//     chosen to meet the targets above, not measurements.
//   - A regime's first spell starts fresh at time 0 (not the longer residual
//     of a spell in progress); regimes do not depend on the band; the chain
//     is the same for every spot pool.
//   - Pool depths are assumptions (see Pool depth); a pool's full depth
//     changes only with its regime and trace lines, pools of one family or
//     zone do not share capacity. A capacity reservation (Config.Reservations,
//     reservation.go) takes exactly its count; an offering of capacity type
//     reserved that names none has no size (the start state's).
//     A Launch asks for one instance; a fleet of N is N launches at one
//     instant.
//   - Regions are independent (the observed 0.14 region correlation, docs/models.md, is not
//     modelled); there is one market per run.
//   - The join-failure and slow-join rates are assumptions, the same for
//     every pool and owner; a node never registers or registers Ready
//     (no registered-but-NotReady node).
//   - Spot quota is a single vCPU count; on-demand quotas, API throttling
//     and the hibernate/stop interruption behaviours are not modelled.
//     Instances are billed from launch, not from the end of boot.
package spotmarket
