package disruptionfidelity

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/spotmarket"
)

// nodeClassYAML is the EC2NodeClass every case's pools refer to: defaults
// only (AL2023), as the export writes it.
const nodeClassYAML = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: fidelity}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: fidelity}}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: all}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
`

// ourTypes sizes the catalogue's types of the generator's families and of
// categories c, m, r (generation 5 and later, at most 32 vCPUs) as our
// Karpenter model launches them under the default EC2NodeClass
// (scheduling.Scheduler.InstanceTypes), with the offerings our market
// sells with the market off (spotmarket ModelOff: every pool available at
// its base price) in the three zones.
func ourTypes(cat *catalog.Catalog) ([]InstanceType, error) {
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	docs, err := manifest.ReadBytes("fidelity-types.yaml", []byte(nodeClassYAML))
	if err != nil {
		return nil, err
	}
	res, err := apis.Compile(docs, apis.Env{Syms: cl.Syms, Resources: cl.Resources, Catalog: cat, Zones: Zones})
	if err != nil {
		return nil, fmt.Errorf("compiling the sizing NodePool: %w", err)
	}
	cfg := spotmarket.DefaultConfig()
	cfg.Model = spotmarket.ModelOff
	market, err := spotmarket.New(eng, cat, Region, Zones, cfg)
	if err != nil {
		return nil, err
	}
	sc, err := scheduling.New(scheduling.Inputs{Engine: eng, Cluster: cl, Catalog: cat, Prices: market, Region: Region,
		Zones: Zones, NodePools: res.NodePools, Settings: apis.DefaultSettings()})
	if err != nil {
		return nil, err
	}
	fam := map[string]bool{}
	for _, f := range families {
		fam[f] = true
	}
	var out []InstanceType
	for _, pit := range sc.InstanceTypes("all") {
		family := pit.Labels["karpenter.k8s.aws/instance-family"]
		category := pit.Labels["karpenter.k8s.aws/instance-category"]
		gen, _ := strconv.Atoi(pit.Labels["karpenter.k8s.aws/instance-generation"])
		cpu, _ := strconv.Atoi(pit.Labels["karpenter.k8s.aws/instance-cpu"])
		if !fam[family] && !((category == "c" || category == "m" || category == "r") && gen >= 5 && cpu <= 32) {
			continue
		}
		if pit.Labels["kubernetes.io/os"] != "" && pit.Labels["kubernetes.io/os"] != "linux" {
			continue
		}
		it := InstanceType{Name: pit.Name, Labels: pit.Labels, Capacity: resourceList(pit.Capacity), Allocatable: resourceList(pit.Allocatable)}
		for _, z := range Zones {
			for _, ct := range []cluster.CapacityType{cluster.OnDemand, cluster.Spot} {
				o := cloud.Offering{InstanceType: pit.Name, Zone: z, CapacityType: ct}
				if !market.Available(o) {
					continue
				}
				p, ok := market.Price(o)
				if !ok || p <= 0 {
					continue
				}
				it.Offerings = append(it.Offerings, Offering{Zone: z, CapacityType: ct.String(), Price: p})
			}
		}
		out = append(out, it)
	}
	return out, nil
}

func resourceList(r cluster.Resources) corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewMilliQuantity(r[cluster.CPU], resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity(r[cluster.Memory], resource.BinarySI),
		corev1.ResourceEphemeralStorage: *resource.NewQuantity(r[cluster.Ephemeral], resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(r[cluster.Pods], resource.DecimalSI),
	}
}
