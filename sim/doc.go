// Package sim holds the simulator's packages; it has no code of its own.
// This comment is the map: the packages fall into seven tiers, and the rules
// at the end say which tier may import which.
//
// # Core
//
// The discrete-event machinery, which knows nothing of Kubernetes.
//
//   - engine: the virtual clock, the event queue with cancellable timers,
//     handler dispatch, the named seeded random streams.
//   - dist: duration distributions (run times, latencies) sampled from the
//     engine's streams.
//
// # State
//
// What the models share: the cluster and the vocabulary of the cloud.
//
//   - cluster: nodes, pods, resources, interned labels, taints, the compiled
//     matchers that decide where a pod may run, indexes.
//   - catalog: the embedded EC2 instance types, prices, spot advisor data
//     and allocatable overhead.
//   - cloud: value types between the autoscalers and EC2 (offerings, launch
//     requests and answers, instance IDs, spot signals).
//   - invariants: the checks --check runs on the state after every event.
//
// # Contract
//
// How a model takes part in a run, without the house naming it.
//
//   - component: the component contract (as kube-scheduler's plugin
//     registry, one level up): a name, the document kinds it reads (API
//     group and kind), a Scenario settings field, a compile step that
//     turns its documents into a typed configuration and coded warnings,
//     a build step; optional interfaces for claiming other documents,
//     overrides across kinds, the cluster's location, adopting start
//     nodes, report sections, explain. component/builtin registers the
//     in-tree components (cmd/sim and tests import it); simulation's
//     parts list orders their building by name.
//
// # Models
//
// The components of a real cluster, one package each.
//
//   - scheduler: kube-scheduler (queue, filter and score plugins, binding,
//     preemption).
//   - karpenter: Karpenter (provisioning, NodeClaims, interruption handling,
//     disruption).
//   - karpenter/scheduling: Karpenter's provisioning solve (existing
//     nodes, topology, requirements, pod data, offerings), which the
//     controller and its disruption what-ifs call, and tests without a
//     controller; part of the Karpenter model, imported by karpenter.
//   - karpenter/overlay: what NodeOverlays do to each NodePool's instance
//     types (which overlay sets which offering's price or resource, and
//     which conflict); part of the Karpenter model, imported by
//     karpenter and karpenter/scheduling.
//   - clusterautoscaler: the Cluster Autoscaler (node groups, scale-up with
//     estimator and expanders, back-off, scale-down).
//   - spotmarket: EC2 (capacity pools, launches, the spot market and its
//     signals, billing).
//   - workload: the controllers that own pods (Deployment, StatefulSet, Job,
//     DaemonSet, bare Pods, HPA, fallbacks).
//   - kubelet: pod start delay and run time; the node failures the
//     scenario scripts (node conditions its agents report).
//   - taintmanager: NoExecute taint eviction.
//   - eviction: the eviction API that drains go through (PodDisruptionBudgets).
//
// # Input
//
// Users' files turned into the values the models are built from.
//
//   - manifest: YAML and JSON documents with line numbers, strict decoding,
//     precise errors.
//   - scenario: the Scenario document, includes, compiling manifests into
//     each model's configuration; it reads a replay trace's file and hands
//     the bytes to spotmarket.ReadTrace.
//   - karpenter/apis: NodePools, EC2NodeClasses and their legacy forms,
//     compiled to karpenter.sh/v1 for package karpenter.
//   - clusterautoscaler/config: eksctl node groups, the CA's flags and the
//     priority expander's configuration.
//   - capacitybuffer: the autoscaling.x-k8s.io CapacityBuffer API both
//     autoscalers read (decoding, the CRD's rules, the pod and
//     status.replicas each upstream's buffer controller computes).
//   - clusterautoscaler/provreq: the ProvisioningRequest API
//     (autoscaling.x-k8s.io/v1), decoded and checked against its CRD.
//   - importer: sim import, a live cluster's kubectl exports (a List, read
//     one object at a time) turned into a scenario that starts from that
//     state; cmd/sim opens the files and hands it readers.
//   - scalegen: generated scale scenarios (sim gen scale); and, outside sim,
//     the module's scenarios package embeds the shipped scenarios.
//
// # Output
//
// What a run leaves behind: records of the cluster's changes and the
// models' counters, and their renderings.
//
//   - report: metrics collected from cluster changes and the timeline
//     sampled from them; table, JSON, CSV, the HTML page and OpenMetrics.
//   - trace: the timeline for --events and sim explain.
//   - statedump: the cluster at one moment as a kubectl-style List, built
//     with the k8s.io/api types (sim run --dump-state); what it needs of
//     the models' state the driver copies into its Input.
//
// # Drivers
//
// What puts the rest together and runs it.
//
//   - simulation: wires one run from a loaded scenario and returns its report.
//   - experiment: many seeds in parallel, aggregation with confidence
//     intervals, comparisons on common random numbers, gates.
//   - sweep: sim sweep, a grid of configurations on the same seeds, its
//     Pareto frontier, shards whose partial results merge exactly, and the
//     Kubernetes Indexed Job that runs them.
//   - lint: sim lint, the static check of a loaded scenario; it asks the
//     models themselves (the scheduler's filters, Karpenter's solver, the
//     Cluster Autoscaler's scale-up check) instead of running time.
//   - explain: sim explain, one pod's story from a run: its timeline, the
//     nodes launched for it and what became of them, and why none came,
//     asking each component (Karpenter's and the Cluster Autoscaler's
//     reasons, lint's capacity matrix) through one small function each;
//     it returns the story as a value and renders it to an io.Writer, for
//     the command line and a web page alike.
//   - verdict: the conclusion of a run in a sentence or two (what
//     happened, why, what it cost, what to run next), from the report,
//     lint's findings and the launches' capacity errors; every output
//     leads with it.
//   - cmd/sim (outside sim): flags, configuration, output files, exit codes.
//
// # Rules
//
//   - The core imports only the standard library; the engine knows no model.
//   - The state imports the core only.
//   - The contract imports the core, the state and manifest (a
//     component's compile step reads documents).
//   - Models meet only in the cluster state, as they do in a real cluster:
//     Karpenter and the Cluster Autoscaler see the same pending pods and the
//     same nodes. A model never imports another model; it imports the core,
//     the state, the contract (its component: compile and build) and the
//     compiled form of its own input (karpenter/apis,
//     clusterautoscaler/config, clusterautoscaler/provreq); karpenter also imports its solve,
//     karpenter/scheduling, which imports karpenter/apis, and both
//     import karpenter/overlay (which imports karpenter/apis); karpenter
//     and clusterautoscaler both import capacitybuffer, the input they
//     share. The cloud
//     interface belongs to the autoscalers that call it, in the
//     vocabulary of cloud; spotmarket satisfies it and tests fake it.
//   - Only the engine owns time. No model reads the wall clock, starts a
//     goroutine, reads the environment, prints or touches a file.
//   - Input packages import the core, the state, the contract and one
//     another; scenario also imports the models whose configuration it
//     builds (the scheduler, the market, the workloads, the kubelet), and
//     hands every component's documents to the component registered for
//     them, never naming one.
//   - Output packages import the core and the state, never a model; what
//     they render goes to an io.Writer they are given.
//   - I/O stays at the edges: users' files are read by manifest and
//     scenario; cmd/sim reads only its own inputs (--config, --baseline,
//     the machine's memory size, and opens sim import's exports for the
//     importer, which reads them from an io.Reader) and is the only
//     package that writes files or prints.
//   - Drivers may import anything.
//   - Packages under sim/internal and test-only helpers are not a tier:
//     they import no more than the packages that use them may.
//     internal/suggest ("did you mean") and internal/duration (durations
//     with days) serve the input packages, internal/clip (user values cut
//     short in messages) the input packages and the market's trace
//     reader, internal/fixtures (Karpenter's and Kubernetes' example
//     documents, Node manifests) serves sim gen scale and tests, internal/cron (the one cron parser: Karpenter's
//     budget schedules and CronJob schedules, each caller's syntax an
//     option) serves karpenter/apis and workload; they import
//     nothing of ours;
//     cloud/cloudtest (one fake EC2 for the autoscalers' tests),
//     internal/testscript (data-driven test files with -update),
//     internal/simscript (its commands over a real simulation),
//     kubeexport (kubectl exports made of the real API types),
//     internal/choose (a model-based test's choices: seeded or a
//     fuzzer's bytes), internal/scengen (seeded whole scenarios and
//     kubectl exports) and internal/props (what must hold of every run, checked on its
//     timeline) are imported by tests only.
//
// tiers_test.go checks the import rules on every non-test file.
//
// docs/architecture.md draws the same map with the flow of data through a
// run.
package sim
