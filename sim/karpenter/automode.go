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
