package disruptionfidelity

import (
	"encoding/json"
	"fmt"
)

// Export writes the case as `kubectl get nodes,pods,deployments,
// replicasets,daemonsets,pdb -A -o json` and `kubectl get
// nodepools,ec2nodeclasses,nodeclaims -o json` print it, in one List:
// apiVersion and kind on every item, 4-space indent as kubectl's JSON
// printer writes it.
func (c *Case) Export() ([]byte, error) {
	var items []any
	items = append(items, map[string]any{
		"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
		"metadata": map[string]any{"name": "default", "annotations": map[string]string{
			NodeClassHashKey: c.NodeClassHash, NodeClassHashVersionKey: NodeClassHashVersion}},
		"spec": map[string]any{
			"amiSelectorTerms":           []any{map[string]string{"alias": "al2023@latest"}},
			"role":                       "KarpenterNodeRole-fidelity",
			"subnetSelectorTerms":        []any{map[string]any{"tags": map[string]string{"karpenter.sh/discovery": "fidelity"}}},
			"securityGroupSelectorTerms": []any{map[string]any{"tags": map[string]string{"karpenter.sh/discovery": "fidelity"}}},
		},
	})
	for _, o := range c.Pools {
		items = append(items, o)
	}
	for _, o := range c.NodeClaims {
		items = append(items, o)
	}
	for _, o := range c.Nodes {
		items = append(items, o)
	}
	for _, o := range c.Deployments {
		items = append(items, o)
	}
	for _, o := range c.ReplicaSets {
		items = append(items, o)
	}
	for _, o := range c.DaemonSets {
		items = append(items, o)
	}
	for _, o := range c.PDBs {
		items = append(items, o)
	}
	for _, o := range c.Pods {
		items = append(items, o)
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]string{"resourceVersion": ""}, "items": items}
	b, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		return nil, fmt.Errorf("%s: writing the export: %w", c.Name, err)
	}
	return append(b, '\n'), nil
}
