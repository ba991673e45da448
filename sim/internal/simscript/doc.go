// Package simscript runs testscript files against one simulation: the
// script builds a scenario from the same manifests and Scenario document
// users write (loaded by sim/scenario, so the real loader and the real
// wiring of sim/simulation are exercised), then steps the run and prints
// what a reader wants to see at each step. Test code only.
//
// Commands that build the scenario (before the first run):
//
//	scenario seed=1 duration=24h region=us-east-1 zones=a,b,c
//	    optional input: YAML merged into the Scenario's spec (karpenter:,
//	    clusterAutoscaler:, market:, staticNodes:, ...). Defaults: seed 1,
//	    duration 24h, and a quiet market (model: off) so that only the
//	    script's own market events act.
//	nodepool
//	    input: NodePools and EC2NodeClasses (karpenter.sh/v1 YAML); an
//	    EC2NodeClass named default is added when none is given.
//	nodegroup [autoscaler=none]
//	    input: an eksctl ClusterConfig, or managed node groups (one
//	    mapping or a list) to wrap in one (named sim). Unless the spec
//	    sets clusterAutoscaler, a Cluster Autoscaler runs with
//	    --node-group-auto-discovery=asg:tag=kubernetes.io/cluster/<name>
//	    (a tag eksctl gives every ASG of the cluster), so it finds the
//	    groups; with autoscaler=none it does not, and the groups are
//	    plain ASGs.
//	manifest
//	    input: any other Kubernetes objects (PodDisruptionBudgets,
//	    DaemonSets, PriorityClasses, Namespaces, Nodes).
//	deploy name=web replicas=4,1@10m cpu=500m memory=512Mi [pod options]
//	    a Deployment; replicas is count[@at],...; the first count is at 0s
//	    unless it says otherwise. With input (a Deployment or StatefulSet
//	    manifest) only replicas is read.
//	job name=render pods=90 at=10m runtime=15m cpu=... [pod options]
//	    a Job whose pods all run at once, arriving at at, each running for
//	    runtime. With input (a Job manifest) only at and runtime are read.
//	exhaust at=40m [for=90m] [types=..] [families=..] [zones=..]
//	        [capacity-type=spot] [state=exhausted] [reclaim=0.8] [rebalance=..]
//	    a market event (spec.market.events): pools become exhausted (or
//	    the given state) and a share of their instances is reclaimed.
//	interrupt at=5m [types=..] [families=..] [zones=..] [share=1] [rebalance=..]
//	    a market event that only reclaims (and sends rebalance
//	    recommendations to) a share of the matching instances.
//
// Pod options of deploy and job: namespace=, labels=k=v,..,
// select=k=v,.. (nodeSelector), tolerate=k=v,k,.. (Equal or Exists, any
// effect), spread=zone|hostname (topology spread of the workload, max skew
// 1), anti-affinity=zone|hostname (required, against itself),
// prefer-zone=z (preferred node affinity), priority-class=name,
// do-not-disrupt.
//
// Commands that run and look:
//
//	run 30m | run until=1h
//	    starts the run at the first use, then advances simulated time by
//	    the duration (or to the time); prints the time reached.
//	nodes [labels=k1,k2] [taints] [price]
//	    the live nodes: name, type, zone, capacity type, owner/pool, state
//	    (and the labels, taints, price asked for) and pods per workload.
//	node name=p-bbbbc
//	    one node: type, zone, capacity type, owner, state, instance,
//	    price, launch and ready times, labels, taints and pods.
//	pods [all] [zones]
//	    pods per workload by phase (pending, bound, running; all adds the
//	    finished and deleted ones), and with zones the zones of the running
//	    ones.
//	events [kinds=nodeLaunched,nodeRemoved,..]
//	    timeline entries (sim/trace) since the last events command.
//	report key=karpenter.disruptions,nodes.launched
//	    figures of the report as of now, by JSON path (an array element
//	    by index or by its name).
//	reset
//	    forgets the scenario and the run: the next commands start anew.
package simscript
