// Package cloudtest is a scripted EC2 for tests of the autoscaler models:
// one fake that satisfies the Cloud interfaces of sim/karpenter and
// sim/clusterautoscaler (Launch, Terminate, Price, Available, Subscribe).
// Only tests import it; the simulator itself uses sim/spotmarket.
//
// What it does, and nothing more:
//
//   - Launch tries the requested offerings in strategy order (cheapest
//     first for the two price strategies, the caller's order otherwise:
//     the fake has no capacity regimes or advisor bands) and launches in
//     the first one that is sold and not exhausted. Instance IDs count up
//     from 1, so a test can predict them.
//   - Offerings are exhausted and restored by the test ([Cloud.Exhaust],
//     [Cloud.Restore]); launching there fails with
//     InsufficientInstanceCapacity, and a launch that gets nothing returns
//     an error wrapping [cloud.ErrInsufficientCapacity], as the market's
//     does. Offerings without a price fail with Unsupported.
//   - [Cloud.FailNext] makes the next launches fail with a given error.
//   - Every Launch and Terminate call is recorded, in order
//     ([Cloud.Launches], [Cloud.Terminated]).
//   - Signals are sent the way the market sends them ([Cloud.Signal],
//     [Cloud.SignalAt], [Cloud.Interrupt]): each from its own engine event,
//     after the fake's state is updated, only about live instances, and a
//     subscriber that calls Launch or Terminate from OnSignal panics.
//
// Prices come from the catalogue ([CatalogPrices]) or are one flat price
// ([FlatPrice]); [Cloud.SetPrice] overrides one offering.
package cloudtest
