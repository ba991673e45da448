package apis

import (
	yaml "go.yaml.in/yaml/v3"

	"github.com/clustersim/clustersim/sim/manifest"
)

// Small helpers over the yaml.Node tree of a document, used to find
// obsolete fields before strict decoding so that each gets its own message
// (and is then removed from a copy so the decoder does not report it again
// as unknown).

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return deref(n.Content[0])
	}
	return n
}

// child returns the value under key of mapping n (nil if absent).
func child(n *yaml.Node, key string) *yaml.Node {
	return manifest.MappingValue(deref(n), key)
}

// lookup follows a path of keys.
func lookup(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		n = child(n, k)
		if n == nil {
			return nil
		}
	}
	return n
}

// removeKey deletes key from mapping n.
func removeKey(n *yaml.Node, key string) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content = append(n.Content[:i], n.Content[i+2:]...)
			return
		}
	}
}

// cloneNode deep-copies a tree; aliases keep pointing into the copy when
// their anchor was copied first (in document order, as YAML requires).
func cloneNode(n *yaml.Node) *yaml.Node {
	seen := map[*yaml.Node]*yaml.Node{}
	var walk func(*yaml.Node) *yaml.Node
	walk = func(n *yaml.Node) *yaml.Node {
		if n == nil {
			return nil
		}
		if c, ok := seen[n]; ok {
			return c
		}
		c := *n
		seen[n] = &c
		if len(n.Content) > 0 {
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, x := range n.Content {
				c.Content[i] = walk(x)
			}
		}
		if n.Alias != nil {
			c.Alias = walk(n.Alias)
		}
		return &c
	}
	return walk(n)
}

// cloneDoc copies a document so that keys can be removed from the copy.
func cloneDoc(d *manifest.Document) *manifest.Document {
	c := &manifest.Document{File: d.File, Line: d.Line, APIVersion: d.APIVersion, Kind: d.Kind,
		Name: d.Name, Namespace: d.Namespace, Node: cloneNode(d.Node)}
	return c
}

// scalar returns the scalar value of n ("" if not a scalar).
func scalar(n *yaml.Node) string {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}
