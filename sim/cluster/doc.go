// Package cluster holds the simulated cluster's state: nodes, pods, their
// resources, labels, taints and the compiled matchers that decide where a pod
// may run.
//
// Users' Kubernetes objects are compiled once, at load, into compact forms:
// strings become interned symbols (Sym), resource lists become fixed-size
// vectors (Resources), selectors and tolerations become small structs that
// compare integers. The scheduler, both autoscalers and `sim lint` all match
// through this one package, so they can never disagree about who may land
// where: StaticFit (staticfit.go) is the pod-independent "can this pod ever
// land on a node like this?" check (cordon, node name, taints, node
// selector/affinity, resources) that the autoscalers and lint ask of real
// and template nodes, built from the same matchers as the scheduler's
// filters.
//
// Volumes (volumes.go): StorageClasses, claims and volumes, and the
// per-pod spec variants that carry what a pod's claims demand of a node
// (VolumePin); StaticFit checks the pin, so the scheduler, the autoscalers
// and lint agree on where a pod's volumes can be used.
//
// Units: CPU in millicores, memory and ephemeral storage in bytes, pods and
// extended resources (nvidia.com/gpu, ...) as counts; times are engine.Time
// (virtual time since scenario start).
//
// The state changes only through Cluster's methods, which notify registered
// Watchers synchronously. Watchers must not mutate the cluster from inside a
// notification; they schedule an engine event instead, as a controller would
// react to an informer. Each node has a change counter, NodeEpoch
// (nodeepoch.go), that moves on every node notification before the watchers
// hear of it: the models stamp their cached per-node answers with it instead
// of each keeping a counter of its own.
package cluster
