package lint

import "github.com/clustersim/clustersim/sim/cluster"

// needsNonLinux reports whether a pod can run only on nodes whose
// kubernetes.io/os is not linux (a nodeSelector kubernetes.io/os: windows,
// or required node affinity every term of which excludes linux). Every
// simulated node is Linux: Windows nodes are refused where they are
// declared, so such a pod can land nowhere.
func needsNonLinux(syms *cluster.Symbols, spec *cluster.PodSpec) bool {
	if spec == nil {
		return false
	}
	osKey, ok := syms.Lookup("kubernetes.io/os")
	if !ok {
		return false
	}
	linux := cluster.CompileLabels(syms, map[string]string{"kubernetes.io/os": "linux"})
	rejects := func(reqs []cluster.Requirement) bool {
		for i := range reqs {
			if r := &reqs[i]; r.Key == osKey && !r.Field && !r.Matches(syms, linux) {
				return true
			}
		}
		return false
	}
	if rejects(spec.NodeSelector) {
		return true
	}
	if spec.Affinity == nil || len(spec.Affinity.Terms) == 0 {
		return false
	}
	for i := range spec.Affinity.Terms {
		if !rejects(spec.Affinity.Terms[i].Reqs) {
			return false
		}
	}
	return true
}
