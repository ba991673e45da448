package config

import (
	yaml "go.yaml.in/yaml/v3"

	"github.com/clustersim/clustersim/sim/manifest"
)

// Location reads where an eksctl ClusterConfig puts the cluster, before it
// is compiled: metadata.region and the cluster's availabilityZones, each
// "" or nil when absent or not a plain string (list of strings). The
// scenario takes its region and zones from them when it sets none.
func Location(d *manifest.Document) (region string, zones []string) {
	if d == nil {
		return "", nil
	}
	if r := manifest.MappingValue(manifest.MappingValue(d.Node, "metadata"), "region"); r != nil && r.Kind == yaml.ScalarNode {
		region = r.Value
	}
	if l := manifest.MappingValue(d.Node, "availabilityZones"); l != nil && l.Kind == yaml.SequenceNode {
		for _, z := range l.Content {
			if z.Kind != yaml.ScalarNode {
				return region, nil
			}
			zones = append(zones, z.Value)
		}
	}
	return region, zones
}
