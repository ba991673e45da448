// Package config compiles the Cluster Autoscaler's inputs as users write
// them, with precise errors (file, line, field path, what to do):
//
//   - eksctl ClusterConfig (eksctl.io/v1alpha5) managedNodeGroups and
//     nodeGroups into [NodeGroup]s ([CompileClusterConfig]), with the ASG
//     tags EKS and eksctl write and the template the AWS provider builds
//     from them ([BuildTemplate]);
//   - the Cluster Autoscaler's command-line flags, those of 1.37
//     (testdata/upstream-flags.txt, generated from upstream's
//     pkg/config/flags/flags.go; each either acts or warns why it changes
//     nothing here), as pasted from its
//     Deployment ([ParseFlags]), or read from the Deployment itself when
//     the manifests hold it ([FindDeployment]: a container running the
//     cluster-autoscaler image or program; its command after the program,
//     then its args);
//   - the priority expander's ConfigMap ([ParsePriorityConfigMap]);
//   - a scenario's spec.clusterAutoscaler ([SettingsSpec]), and checks
//     across the groups and the settings ([CrossCheck], [Select]).
//
// eksctl defaults (eksctl pkg/apis/eksctl.io/v1alpha5): instance type
// m5.large; minSize from desiredCapacity, else 2; maxSize from
// desiredCapacity, else minSize (at least 1); desiredCapacity from
// minSize; root volume 80 GiB. Managed node groups get the labels
// eks.amazonaws.com/nodegroup and eks.amazonaws.com/capacityType (ON_DEMAND
// or SPOT), no taint of their own, and ASG tags for auto-discovery; spot
// managed groups use capacity-optimized and capacity rebalancing. eksctl
// node groups are tagged for auto-discovery only with
// iam.withAddonPolicies.autoScaler, and carry node-template tags only with
// propagateASGTags (taint tags without the effect, which the Cluster
// Autoscaler ignores). Every node gets alpha.eksctl.io/cluster-name and
// alpha.eksctl.io/nodegroup-name.
//
// Operating systems: every node group is Linux (kubernetes.io/os=linux),
// whatever its amiFamily (AmazonLinux2, AmazonLinux2023, Bottlerocket,
// Ubuntu...), except a Windows one (WindowsServer2019FullContainer, ...),
// which is an error at its amiFamily: Windows nodes are not simulated (no
// Windows prices in the data, no Windows overheads or pod rules).
// autoModeConfig.enabled: true warns that EKS Auto Mode's built-in
// NodePools are not simulated and says how to write them as Karpenter
// NodePools. [Location] reads metadata.region and availabilityZones before
// compiling, for the scenario's default region and zones; a zone that is
// not one of the region's is an error at its line.
//
// ASG names follow AWS's shapes (eks-<group>-<uuid> for managed node
// groups, eksctl-<cluster>-nodegroup-<group>-NodeGroup-<suffix> for the
// others), with the random parts derived from the names so runs are
// reproducible: priority expander regexes and --nodes match them (--nodes
// also accepts the eksctl name).
package config
