package karpenter

import (
	"fmt"
	"strings"

	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/manifest"
)

// autoModeOf says whether EKS Auto Mode is on, and which built-in
// NodePools are enabled: spec.karpenter.autoMode, else an eksctl
// ClusterConfig's autoModeConfig among the other components' documents
// (eksctl: enabled defaults to false, nodePools to both built-in pools).
// nil: Auto Mode is off.
func autoModeOf(env component.Env, in component.Input, spec *apis.SettingsSpec) (*apis.AutoMode, error) {
	both := []string{apis.BuiltinGeneralPurpose, apis.BuiltinSystem}
	if spec != nil && spec.AutoMode != nil {
		a := spec.AutoMode
		if a.Enabled != nil && !*a.Enabled {
			return nil, nil
		}
		path := in.SettingsPath + ".autoMode"
		am := &apis.AutoMode{NodePools: both, Doc: env.Scenario, Path: path}
		if a.NodePools != nil {
			am.NodePools = *a.NodePools
		}
		return am, apis.CheckBuiltinNodePools(env.Scenario, path+".nodePools", am.NodePools)
	}
	for _, d := range in.Peers {
		if d.Kind != "ClusterConfig" || !strings.HasPrefix(d.APIVersion, "eksctl.io/") {
			continue
		}
		cfg := manifest.Lookup(d.Node, "autoModeConfig")
		if manifest.Scalar(manifest.Lookup(cfg, "enabled")) != "true" {
			return nil, nil
		}
		am := &apis.AutoMode{NodePools: both, Doc: d, Path: "autoModeConfig.enabled"}
		if n := manifest.Lookup(cfg, "nodePools"); n != nil {
			vals, ok := manifest.Scalars(n)
			if !ok {
				return nil, d.Errorf("autoModeConfig.nodePools", "list built-in NodePools: [general-purpose, system], or [] for none", "nodePools is not a list of names")
			}
			am.NodePools = vals
			if am.NodePools == nil {
				am.NodePools = []string{}
			}
		}
		return am, apis.CheckBuiltinNodePools(d, "autoModeConfig.nodePools", am.NodePools)
	}
	return nil, nil
}

// autoModeWarnings are the findings of a scenario with NodePools of EKS
// Auto Mode: the management fee the prices lack, and that AWS runs
// their Karpenter.
func autoModeWarnings(pools []NodePool, am *apis.AutoMode) []component.Warning {
	var names []string
	var first *NodePool
	for i := range pools {
		if pools[i].NodeClass.AutoMode {
			names = append(names, pools[i].Name)
			if first == nil {
				first = &pools[i]
			}
		}
	}
	if first == nil {
		return nil
	}
	file, line, path, at := first.File, first.Line, "", ""
	if am != nil {
		file, line, path, at = am.Doc.File, am.Doc.LineOf(am.Path), am.Path, am.Path+": "
	}
	return []component.Warning{{Code: apis.CodeAutoModeFee, File: file, Line: line, Path: path, Info: true,
		Msg: at + fmt.Sprintf("EKS Auto Mode NodePools (%s): AWS runs their Karpenter (no controller Deployment in the cluster; its settings and feature gates are Karpenter's defaults here) and adds a management fee per instance-hour on top of the EC2 price, set per instance type; the simulator's price data has no such fee, so the cost of these nodes is their EC2 price only",
			strings.Join(names, ", ")),
		Fix: "add Auto Mode's fee for your instance types from the Amazon EKS pricing page to the reported cost"}}
}

// autoModeStorageWarnings: in a cluster whose every node is EKS Auto
// Mode's (all NodePools of its NodeClass, no eksctl node groups), a
// StorageClass of the self-managed EBS CSI driver (ebs.csi.aws.com, or
// the in-tree kubernetes.io/aws-ebs that migrates to it). Auto Mode's
// storage is ebs.csi.eks.amazonaws.com ("You must create a StorageClass
// referencing ebs.csi.eks.amazonaws.com to use the storage capability of
// EKS Auto Mode", create-storage-class.adoc); the simulation provisions
// the class's volumes all the same.
func autoModeStorageWarnings(pools []NodePool, others, peers []*manifest.Document) []component.Warning {
	auto := false
	for i := range pools {
		if !pools[i].NodeClass.AutoMode {
			return nil
		}
		auto = true
	}
	if !auto {
		return nil
	}
	for _, d := range peers {
		if d.Kind == "ClusterConfig" && (manifest.Lookup(d.Node, "managedNodeGroups") != nil || manifest.Lookup(d.Node, "nodeGroups") != nil) {
			return nil
		}
	}
	var out []component.Warning
	for _, d := range others {
		if d.Kind != "StorageClass" {
			continue
		}
		prov := manifest.Scalar(manifest.Lookup(d.Node, "provisioner"))
		if prov != "ebs.csi.aws.com" && prov != "kubernetes.io/aws-ebs" {
			continue
		}
		fix := "write provisioner: ebs.csi.eks.amazonaws.com, or install the EBS CSI driver (the aws-ebs-csi-driver add-on)"
		out = append(out, component.Warning{Code: apis.CodeAutoModeStorage, File: d.File, Line: d.LineOf("provisioner"), Path: "provisioner", Fix: fix,
			Msg: fmt.Sprintf("provisioner: every node of this cluster is EKS Auto Mode's, whose block storage is ebs.csi.eks.amazonaws.com: volumes of StorageClass %s (%s) are made only where the self-managed EBS CSI driver is installed, which nothing here shows; they are provisioned in the simulation as if it were (%s)", d.Name, prov, fix)})
	}
	return out
}
