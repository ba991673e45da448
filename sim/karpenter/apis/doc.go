// Package apis reads Karpenter's objects as users write them and compiles
// them into karpenter.sh/v1 NodePools for package karpenter.
//
// Supported documents: karpenter.sh/v1 NodePool and karpenter.k8s.aws/v1
// EC2NodeClass (KC and KA v1.14); the legacy karpenter.sh/v1beta1 NodePool
// and karpenter.k8s.aws/v1beta1 EC2NodeClass (v0.37, each with a legacy
// warning), karpenter.sh/v1alpha5
// Provisioner and karpenter.k8s.aws/v1alpha1 AWSNodeTemplate (v0.31); and
// karpenter.sh/v1alpha1 NodeOverlay (v1.15.0, its CRD's rules errors, its
// runtime validation a warning that it is never applied); and
// autoscaling.x-k8s.io/v1beta1 CapacityBuffer (KC v1.15.0; v1alpha1, which
// Karpenter's CRD does not serve, read with a warning). The
// decoding structs mirror the upstream types field for field, so the
// strict decoder of sim/manifest reports unknown fields with their line
// and a did-you-mean. Network, AMI, IAM and user-data fields are accepted
// and ignored; unexpanded ${...} placeholders are fine in values (not in
// names, which sim/manifest checks for every kind). An EC2NodeClass is
// checked against the v1 CRD's rules (ec2nodeclass_validate.go: the
// required selector terms, item counts and the CEL rules that need no
// account); a refused class is an error at each field and at the
// nodeClassRef of each NodePool that names it.
//
// karpenter.sh/v1 documents are validated as the API server would: an
// obsolete or invalid field is an error at its line with the v1 form as
// the hint (consolidation: {enabled}, drift: {enabled}, expireAfter under
// disruption, kubelet in the NodePool, v1alpha5 fields, WhenUnderutilized,
// the EKS effect spellings NO_SCHEDULE/PREFER_NO_SCHEDULE/NO_EXECUTE,
// labels in the reserved karpenter.sh and karpenter.k8s.aws domains, bad
// durations, budgets, cron schedules, operators and capacity types, and
// instanceStorePolicy values other than RAID0). A requirement on a custom
// key (no well-known label, not set by the template's labels) is accepted
// as upstream accepts it, with a warning that it narrows no instance type
// (lint's unknown-label).
//
// Legacy documents are converted with one warning per change, following
// the upstream migration guides:
//
//   - A Provisioner under any apiVersion is read as the v1alpha5
//     Provisioner it resembles (there is no v1beta1 or v1 Provisioner);
//     NodePool fields written at its spec level (consolidationPolicy,
//     consolidateAfter, expireAfter, disruption, nodeClassRef, kubelet) are
//     read with a warning each, so the seed thread's mixed manifest loads.
//   - ttlSecondsAfterEmpty: N becomes WhenEmpty with consolidateAfter N s
//     (next to a consolidationPolicy: that policy with consolidateAfter N
//     s); consolidation.enabled: true becomes WhenEmptyOrUnderutilized;
//     neither becomes consolidateAfter: Never (v1alpha5 removed neither
//     empty nor underutilized nodes). Both at once is an error, as it was.
//   - ttlSecondsUntilExpired becomes expireAfter; without it, Never (v1
//     would default to 720h).
//   - providerRef becomes nodeClassRef; an inline provider is ignored;
//     kubeletConfiguration (and a v1beta1 template's kubelet) applies to the
//     pool's nodes as the node class's kubelet would in v1.
//   - The v1alpha5 AWS webhook's defaults are written out: kubernetes.io/os
//     In [linux], kubernetes.io/arch In [amd64], karpenter.sh/capacity-type
//     In [on-demand], and, without an instance-type, family, category or
//     generation requirement, instance-category In [c, m, r] and
//     instance-generation Gt 2.
//   - EKS effect spellings become Kubernetes ones; labels in reserved
//     domains (karpenter.sh/provisioner-name) are dropped;
//     drift: {enabled: ...} becomes the budget {nodes: "0", reasons:
//     [Drifted]}.
//   - v1beta1: WhenUnderutilized becomes WhenEmptyOrUnderutilized,
//     disruption.expireAfter moves to the template, nodeClassRef.apiVersion
//     becomes group.
//
// A taint karpenter.sh/do-not-consolidate gets a warning wherever it
// appears (Karpenter does not read it); [NodeTaintWarning] gives the text
// for nodes Karpenter did not launch. Annotations karpenter.sh/do-not-evict
// and do-not-consolidate are reported as removed in v1.
//
// AMI families: the family of an EC2NodeClass is that of its first
// amiSelectorTerms alias (al2023@latest: AL2023), else spec.amiFamily. AL2,
// AL2023, Bottlerocket, Ubuntu and Custom nodes are Linux nodes (the
// kubernetes.io/os label is linux). The family decides, as in Karpenter's
// instance types, which EBS volume holds the node's ephemeral storage (the
// blockDeviceMapping marked rootVolume, else for Custom the last mapping,
// else the family's device, /dev/xvdb for Bottlerocket and /dev/xvda
// otherwise, else 20 GiB) and, for Bottlerocket, the kubelet: kube-reserved
// memory follows maxPods when it is set (11 MiB a pod + 255 MiB; the
// others keep the ENI-limited pod count), and podsPerCore and evictionSoft
// are ignored with a warning (a legacy NodePool-level kubelet's
// evictionSoft is still counted). Windows nodes are
// not simulated (no Windows prices in the data, nor Windows overheads or
// pod rules): a node class of a Windows family (spec.amiFamily
// Windows2019/2022/2025, an alias windows2019/2022/2025@...), a NodePool
// requirement that allows only Windows nodes (kubernetes.io/os In
// [windows], NotIn [linux], node.kubernetes.io/windows-build In or
// Exists) and a NodePool of a Windows class are skipped with a warning
// (CodeWindows) at their line, listed in Result.Skipped, and the rest is
// compiled; Linux and Windows together (In [linux, windows]) simulate the
// Linux nodes.
//
// EKS Auto Mode (automode.go, from the EKS user guide): the
// eks.amazonaws.com/v1 NodeClass (ephemeralStorage.size is the node's
// ephemeral storage, NVMe stores as RAID0, Bottlerocket nodes, at most
// 110 pods; its other fields checked and ignored), NodePools naming it
// (their eks.amazonaws.com/instance-* requirements compile to the
// karpenter.k8s.aws keys of the same values, karpenter.k8s.aws keys are
// errors, expireAfter 336h and terminationGracePeriod 24h by default,
// the label eks.amazonaws.com/compute-type: auto), and, with
// Env.AutoMode, the built-in general-purpose and system NodePools and
// their default NodeClass as EKS creates them. Auto Mode's management
// fee is not in the price data (package karpenter says so in an info
// line).
//
// Defaults (KC pkg/apis/v1): expireAfter 720h, consolidationPolicy
// WhenEmptyOrUnderutilized, consolidateAfter 0s, budgets [{nodes: 10%}],
// weight 0, no terminationGracePeriod. Controller settings ([Settings],
// compiled from [SettingsSpec] as spec.karpenter of the Scenario) have
// their defaults and sources in settings.go.
package apis
