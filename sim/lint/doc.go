// Package lint checks a loaded scenario statically, before anything runs:
// which capacity source can host which workload, and the mistakes of a
// hybrid Karpenter / Cluster Autoscaler design that show without
// simulating (sim lint).
//
// # Placement matrix
//
// Every workload (its pod template; a resubmit fallback's spec gets a row
// of its own) is checked against every capacity source.
//
// The sources of autoscaled capacity come from the components
// (component.CapacityLinter, asked in registration order): each gives its
// sources' rows, the facts the findings below read (spot, taints, labels,
// zones, fixes), and a judge that says in its own words why a source
// cannot host a pod; lint imports no component. The built-in ones:
//
//   - each Karpenter NodePool, once per capacity type its requirements
//     allow (spot, on-demand): the verdict is Karpenter's own provisioning
//     solver run for one pod on an empty cluster (karpenter.Linter), so
//     taints, requirements, well-known labels, instance types, offerings,
//     limits, minValues and DaemonSet overhead are judged exactly as in a
//     run;
//   - each Cluster Autoscaler node group: the pod can land when some node
//     the group adds (one per instance type and zone, built as the model's
//     launches build them) passes the scheduler's pod-independent filters
//     (cluster.StaticFit), and the group has nodes from the start or the
//     Cluster Autoscaler would scale it up for the pod (autoscaled, may
//     grow, and the pod fits the group's template, as its scale-up options
//     decide; a group with nodes from the start has a template per zone of
//     them, since each loop copies one of its nodes at random; one
//     scaled from zero, the ASG's, in its first zone);
//   - each static pool (spec.staticNodes) and each Node manifest: some
//     node passes cluster.StaticFit with its allocatable as free room.
//
// A cell that cannot host says why in the user's words: "untolerated
// taint capacity-type=on-demand:NoSchedule", "missing label
// node-group-type=ca-managed", "affinity term 0 needs provisioner-group In
// [karpenter-burst]", "no zone in common", "no instance type satisfies the
// requirements", "too big for every instance type: needs 1
// nvidia.com/gpu, no allowed type has any" (the resource short on every
// type, over every resource the scenario knows, or what the largest types
// lack when none has room for all at once), "NodePool limit".
//
// # Findings
//
// Each finding has a severity (info, warning, error), a kind, the file,
// line and field path it concerns, a message and a fix. Kinds:
// unhostable, spot-only-no-fallback, spot-fallback, autoscaler-race,
// autoscalers-separated, overlap, template-mismatch, volume-zone
// (volumes.go: a zone a workload's EBS volumes may pin its pods to, judged
// with the pod's volume pinned there, where no source adds a node),
// spot-flexibility,
// spot-to-spot-flexibility, obsolete-setting, startup-failure,
// ineffective-setting, unknown-label, not-simulated, input-warning and invalid (kinds.go says what each means; findings.go
// words the messages). Findings are sorted by severity (errors first), then file and
// line; the order is deterministic. An unhostable workload's fix names
// the source with the fewest blockers (blockers.go lifts them one by one
// in a copy of the pod spec) and lists them all, so following it
// converges; with no capacity source at all, one finding names the
// workloads.
//
// # Simplifications
//
//   - Pod-to-pod constraints (topology spread, pod affinity and
//     anti-affinity) and preferences are not judged: they depend on where
//     other pods run, not on the capacity source.
//   - "Can land" is about the kind of node a source offers, not about room
//     left: a full static pool or a node group at its maximum still counts.
//   - Static pools and node groups are judged without DaemonSet overhead,
//     as cluster.StaticFit and the Cluster Autoscaler's scale-up check
//     are; Karpenter with it, as its solver is.
//   - DaemonSets and pods with spec.nodeName get no row: nobody provisions
//     for them.
//   - Every node is Linux (Windows capacity is refused when the scenario
//     loads), so a workload that needs kubernetes.io/os other than linux
//     is unhostable for that reason alone, whatever else its cells say.
//   - A split twin counts as a fallback of the workload that drives it and
//     the other way round, although the split does not move replicas when
//     one side cannot run.
//   - Loader warnings are classified by their codes (findings.go's
//     codeFindings), never by their text: karpenter.legacy (every warning
//     inside a legacy Karpenter document, a v1alpha5 Provisioner or v1beta1
//     NodePool, and other legacy forms) and ca.removed-flag are obsolete
//     settings; karpenter.no-such-kind (a kind that never existed in its
//     apiVersion, the karpenter.sh/v1beta1 Provisioner) an obsolete-setting
//     error; ca.price-expander-exits a startup-failure; codes under
//     ineffective. (settings a component ignores) ineffective settings;
//     karpenter.unknown-label (a NodePool requirement on a key no instance
//     type has, not well-known and not a template label) unknown-label;
//     karpenter.windows-skipped (a Windows NodePool or node class, left
//     out) not-simulated;
//     the loader's notes (skipped kinds, identical copies, flags read from
//     the Cluster Autoscaler's Deployment) and the rest are input-warning
//     (info). A fix the message words comes with the warning (Warning.Fix).
//     A scenario that fails to load gets one error finding per load error
//     (FromLoadError), obsolete-setting for the codes karpenter.legacy,
//     karpenter.legacy-field and api.removed-version (a legacy API or a
//     legacy field of karpenter.sh/v1).
package lint
