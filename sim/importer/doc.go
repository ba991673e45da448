// Package importer is sim import: it reads what kubectl exports of a live
// cluster (kubectl get ... -A -o yaml or -o json: a List or single
// objects; Karpenter's NodePools, EC2NodeClasses and NodeClaims; the
// Cluster Autoscaler's Deployment; an eksctl ClusterConfig) and writes an
// ordinary scenario that starts from that state.
//
// Streaming. An export of 5,000 nodes and 150,000 pods is over a gigabyte
// of YAML, so the tree is never built: a JSON List's items are decoded one
// at a time by a token-level decoder, and a YAML List's items are cut out
// by lines (kubectl writes each item as "- " at the items' indentation and
// every other line deeper), one item at a time; a document without items
// is one object. A kind that is not read is recognised by its top-level
// "kind:" line and skipped unparsed: Secrets and ConfigMaps are never
// decoded. What is kept is small: the nodes, the controllers' specs, and
// per controller the list of nodes its pods run on.
//
// The scenario. Nodes become Node manifests (labels, taints, allocatable
// and capacity, creationTimestamp for their age), which the loader makes
// start nodes; spec.importedAt is the export's time, the newest
// creationTimestamp or condition time (lastHeartbeatTime,
// lastTransitionTime) of its Nodes, against which their ages count; a
// Node's unhealthy condition (Ready False or Unknown, the node monitoring
// agent's: the ones node repair acts on) is kept in its status.conditions
// with its lastTransitionTime, and the node starts unhealthy since then;
// the NodePool or node group that owns a node (label
// karpenter.sh/nodepool or a NodeClaim, eks.amazonaws.com/nodegroup,
// alpha.eksctl.io/nodegroup-name) is reported, and the loader has that
// NodePool or node group adopt its nodes; a ClusterConfig node group's
// desiredCapacity becomes the number of its nodes in the export (within
// minSize and maxSize), the ASG's size now. Controllers keep their replica
// counts (pods of a ReplicaSet a Deployment owns count for the
// Deployment; a Job keeps the completions still to run; a StatefulSet its
// podManagementPolicy and minReadySeconds); where their pods run goes to
// spec.workloads[].startOn, which binds the first pods there at time 0 (a
// StatefulSet's by ordinal, "" for a pending pod, up to the highest
// ordinal a pod holds: the missing ones above are the controller's to
// create). Bare Pods keep spec.nodeName. DaemonSet pods are left to their
// DaemonSet; a Deployment's or Job's terminating pod bound to an exported
// node goes to spec.workloads[].startTerminating with the grace period left
// (deletionTimestamp, which the API server sets to the deletion's time plus
// the grace period, minus spec.importedAt, at least 0); finished and other
// terminating pods are left out. A workload whose template carries
// karpenter.sh/do-not-disrupt as a duration gets startedAgo, each startOn
// pod's age at the export (status.startTime), from which the duration
// counts; a bare Pod with a duration keeps its own status.startTime. A NodeClaim's expiry (creationTimestamp plus its own
// spec.expireAfter) goes on its Node as clustersim.dev/expires-at.
//
// Volumes (storage.go): StorageClasses, PersistentVolumes (zone labels,
// node affinity, claimRef) and PersistentVolumeClaims (class,
// volumeName) are kept without status; pod specs keep their
// persistentVolumeClaim and generic ephemeral volumes, StatefulSets their
// volumeClaimTemplates, so a StatefulSet's pods find their bound claims
// TEMPLATE-STS-N in the zones they were provisioned in. A pod volume
// whose claim the export lacks is dropped with a notice (the pod is
// kept); a claim bound to a volume the export lacks is written unbound; a
// class the claims name but the export lacks is written (provisioner from
// the claims' annotation or the volumes' CSI driver, WaitForFirstConsumer);
// the ephemeral claims of controllers' pods are left out.
//
// Nothing secret leaves: every object keeps only the fields the
// simulation reads, an allow list per kind (allow.go for the kinds read
// as maps, the typed objects for the others), so that a field an export
// carries and the simulation does not read is dropped without being
// named: the pod spec keeps requests and limits, placement rules,
// priority, scheduler name, overhead, restart policy and claim volumes
// (and the timing of a StatefulSet's readiness and startup probes,
// initialDelaySeconds, periodSeconds and successThreshold, which say when
// its pods become Ready); commands, args, environment, other volumes,
// probe handlers, image pull secrets, StorageClass parameters but type,
// annotations the models do not read, controllers' own labels,
// managedFields, uids, resourceVersions and status are dropped. The
// Cluster Autoscaler's Deployment keeps its container's image and the
// flags the simulation reads (config.ModelledArgs), not its sidecars;
// NodePools, node classes and eksctl ClusterConfigs keep what
// sim/karpenter/apis and sim/clusterautoscaler/config compile (not user
// data, Bottlerocket settings, IAM, subnets, security groups, KMS keys).
//
// Options.Redact replaces every identifier of the cluster with a stable
// hash, the same wherever it appears, so that the redacted scenario runs
// as the plain one (redact.go): namespace, workload, node, class, volume
// and claim names (a node's also in the nodeSelectors, node affinity and
// startOn that name it), the values of pod, namespace and node labels
// with the selectors and requirements that match them (but the
// catalogue's and autoscalers' own values, and numbers), the cluster
// name, account IDs and AWS resource IDs; a StatefulSet's claim is
// renamed from its renamed template and StatefulSet, an ephemeral
// volume's from its pod and volume, so the model still finds them.
//
// Problems with single objects (an API version not read, two objects of
// one name) are collected and returned together by Write, which then
// writes nothing; what was approximated is in Notices.
package importer
