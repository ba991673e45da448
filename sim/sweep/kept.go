package sweep

import (
	"bytes"
	"fmt"
	"slices"

	yaml "go.yaml.in/yaml/v3"

	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/manifest"
)

// maxKeptNodes bounds the YAML nodes Kept writes for one file: aliases
// are expanded (an item of a List may name an anchor of another), and a
// file whose aliases expand past this is refused rather than grown.
const maxKeptNodes = 1 << 20

// lastApplied is the annotation kubectl apply writes: the whole object
// again, environment values included.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Kept is what a sweep's runs read of one of its input files, as YAML:
// the documents reads keeps (the loader's scenario.Reads, or a Sweep),
// without comments or anchors, and without what no run reads inside
// them: containers' env, envFrom, command and args (but those of the
// Cluster Autoscaler's container, whose flags configure the simulated
// one) and the last-applied-configuration annotation. sim sweep
// --emit-job ships Kept in the Job's ConfigMap, so that a Secret's
// stringData, a ConfigMap's data or an environment value of an included
// manifest never leaves the machine; the sweep's fingerprint hashes it,
// so a shard, which reads Kept's output, computes the fingerprint of the
// sweep that emitted it (Kept of Kept's output is itself).
func Kept(name string, data []byte, reads func(*manifest.Document) bool) ([]byte, error) {
	docs, err := manifest.ReadBytes(name, data)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	budget := maxKeptNodes
	n := 0
	for _, d := range docs {
		if !reads(d) {
			continue
		}
		n++
		c := copyNode(d.Node, &budget, 0)
		if budget < 0 {
			return nil, fmt.Errorf("%s: its aliases expand to more than %d YAML nodes: write it without anchors and aliases (*name)", name, maxKeptNodes)
		}
		stripUnread(d, c)
		if err := enc.Encode(c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, d.Line, err)
		}
	}
	if n == 0 {
		return nil, nil // nothing a run reads (a file of Secrets): shipped empty
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// copyNode copies n with aliases expanded, merge keys (<<) applied (a
// mapping's own keys first, then those merged in that it does not set,
// earlier sources first, as the loader reads them), comments and anchors
// dropped, and collections in block style (a flow mapping at the top
// would read as JSON). budget counts the nodes left.
func copyNode(n *yaml.Node, budget *int, depth int) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	*budget--
	if n == nil || *budget < 0 || depth > manifest.MaxDepth {
		*budget = min(*budget, -1)
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	out := &yaml.Node{Kind: n.Kind, Tag: n.Tag, Value: n.Value, Style: n.Style &^ (yaml.FlowStyle | yaml.TaggedStyle)}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			out.Content = append(out.Content, copyNode(c, budget, depth+1))
		}
	case yaml.MappingNode:
		have := map[string]bool{}
		var merges []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
				merges = append(merges, n.Content[i+1])
				continue
			}
			have[k.Value] = true
			out.Content = append(out.Content, copyNode(k, budget, depth+1), copyNode(n.Content[i+1], budget, depth+1))
		}
		for _, src := range merges {
			for src != nil && src.Kind == yaml.AliasNode {
				src = src.Alias
			}
			if src == nil {
				continue
			}
			maps := []*yaml.Node{src}
			if src.Kind == yaml.SequenceNode {
				maps = src.Content
			}
			for _, m := range maps {
				mc := copyNode(m, budget, depth+1)
				if mc.Kind != yaml.MappingNode {
					continue // the loader refused it
				}
				for i := 0; i+1 < len(mc.Content); i += 2 {
					if k := mc.Content[i].Value; !have[k] {
						have[k] = true
						out.Content = append(out.Content, mc.Content[i], mc.Content[i+1])
					}
				}
			}
		}
	}
	return out
}

// podSpecPaths are where a kind's pod spec is.
var podSpecPaths = map[string][]string{
	"Pod":         {"spec"},
	"Deployment":  {"spec", "template", "spec"},
	"ReplicaSet":  {"spec", "template", "spec"},
	"StatefulSet": {"spec", "template", "spec"},
	"DaemonSet":   {"spec", "template", "spec"},
	"Job":         {"spec", "template", "spec"},
	"CronJob":     {"spec", "jobTemplate", "spec", "template", "spec"},
}

// stripUnread removes from n, the copy of d, what no run reads: the
// containers' environment, commands and args (the Cluster Autoscaler's
// container keeps its command and args, Karpenter's the variables that
// are its settings, plain values only) and the last-applied annotation.
func stripUnread(d *manifest.Document, n *yaml.Node) {
	deleteKey(childNode(n, "metadata", "annotations"), lastApplied)
	path, ok := podSpecPaths[d.Kind]
	if !ok {
		return
	}
	if len(path) > 1 {
		deleteKey(childNode(n, append(path[:len(path)-1:len(path)-1], "metadata", "annotations")...), lastApplied)
	}
	ca := -1
	if i, ok := component.ReadContainer(d); ok {
		ca = i
	}
	envAt, envNames, envRead := component.ReadEnv(d)
	spec := childNode(n, path...)
	for _, list := range []string{"containers", "initContainers", "ephemeralContainers"} {
		cs := childNode(spec, list)
		if cs == nil || cs.Kind != yaml.SequenceNode {
			continue
		}
		for i, c := range cs.Content {
			if envRead && list == "containers" && i == envAt {
				keepEnv(c, envNames)
				deleteKey(c, "envFrom")
			} else {
				deleteKey(c, "env", "envFrom")
			}
			if list != "containers" || i != ca {
				deleteKey(c, "command", "args")
			}
		}
	}
}

// keepEnv keeps of container c's env the variables named with a plain
// value (a valueFrom reference is dropped: what it names is not shipped).
func keepEnv(c *yaml.Node, names []string) {
	env := childNode(c, "env")
	if env == nil || env.Kind != yaml.SequenceNode {
		deleteKey(c, "env")
		return
	}
	out := env.Content[:0]
	for _, e := range env.Content {
		name := childNode(e, "name")
		if name != nil && slices.Contains(names, name.Value) && childNode(e, "valueFrom") == nil {
			out = append(out, e)
		}
	}
	env.Content = out
	if len(out) == 0 {
		deleteKey(c, "env")
	}
}

// childNode follows mapping keys from n (nil when one is missing).
func childNode(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// deleteKey removes keys from mapping n.
func deleteKey(n *yaml.Node, keys ...string) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	out := n.Content[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		drop := false
		for _, k := range keys {
			drop = drop || n.Content[i].Value == k
		}
		if !drop {
			out = append(out, n.Content[i], n.Content[i+1])
		}
	}
	n.Content = out
}
