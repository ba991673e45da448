package ca

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Kinds of the pods of a scale-down case: each but "plain" and "pdb" is
// one of the planner's blockers (drainability rules, pkg/simulator/
// drainability/rules).
const (
	PodPlain       = "plain"         // a ReplicaSet's pod: movable
	PodBare        = "bare"          // no controller: NotReplicated
	PodKubeSystem  = "kube-system"   // a ReplicaSet's pod in kube-system, no PDB: UnmovableKubeSystemPod
	PodNotSafe     = "not-safe"      // safe-to-evict "false": NotSafeToEvictAnnotation
	PodSafeBare    = "safe-bare"     // no controller but safe-to-evict "true": movable
	PodPDB         = "pdb"           // app "db", whose PDB allows 0 or 1 disruption: NotEnoughPdb
	PodLocalVolume = "local-storage" // an emptyDir volume: LocalStorageRequested upstream
)

// SDPod is one bound pod of a scale-down case.
type SDPod struct {
	Kind     string
	App      string // the app label (and ReplicaSet) of the pod
	CPUMilli int64
	MemMi    int64
	// HalfCPU: the pod requests exactly half its node's allocatable cpu
	// (resolved when the node exists), so the node sits at the 0.5
	// threshold.
	HalfCPU bool
}

// SDNode is one node of a group, with the pods bound to it.
type SDNode struct {
	Pods []SDPod
	// NoScaleDown: the node carries cluster-autoscaler.kubernetes.io/
	// scale-down-disabled: "true".
	NoScaleDown bool
}

// SDGroup is a scale-down case's node group: one instance type, one zone.
type SDGroup struct {
	Name         string
	InstanceType string
	Min, Max     int
	Nodes        []SDNode
}

// SDCase is one scale-down input both sides get: node groups with their
// nodes, the pods bound to them, a PDB over app "db" and whether a
// scale-down cool-down runs.
type SDCase struct {
	Name   string
	Shape  string // blockers present, for reports
	Groups []SDGroup
	// PDBMinAvailable is the db PDB's minAvailable (-1: no PDB).
	PDBMinAvailable int
	// Cooldown: --scale-down-delay-after-add (and -after-failure) keep
	// their defaults, 10 and 3 minutes, and the autoscaler started 9 s
	// ago (both sides start with every cool-down running); otherwise all
	// three delays are 0.
	Cooldown bool
	// LocalStorage: some pod has an emptyDir volume (ours does not model
	// pod volumes: the case is reported apart).
	LocalStorage bool
}

var sdTypes = []string{"m5.large", "m5.xlarge", "c5.xlarge", "r5.large", "m6i.xlarge", "c6i.2xlarge"}

// GenerateScaleDown returns n scale-down cases derived from seed.
func GenerateScaleDown(seed uint64, n int) []*SDCase {
	out := make([]*SDCase, n)
	for i := range out {
		out[i] = generateScaleDownOne(seed, i)
	}
	return out
}

func generateScaleDownOne(seed uint64, idx int) *SDCase {
	rng := rand.New(rand.NewPCG(seed^0x5ca1ed0, uint64(idx)*0x9e3779b97f4a7c15+11))
	c := &SDCase{Name: fmt.Sprintf("sd-%03d", idx), PDBMinAvailable: -1}
	shape := map[string]bool{}
	c.Cooldown = rng.IntN(8) == 0
	if c.Cooldown {
		shape["cooldown"] = true
	}
	// Pod kinds, weighted towards movable pods so most nodes are
	// candidates whose pods compete for room.
	kinds := []string{PodPlain, PodPlain, PodPlain, PodPlain, PodPlain, PodPlain, PodPlain, PodPlain,
		PodBare, PodKubeSystem, PodNotSafe, PodSafeBare, PodPDB, PodPDB}
	if rng.IntN(6) == 0 {
		kinds = append(kinds, PodLocalVolume, PodLocalVolume)
	}
	cpus := []int64{100, 200, 250, 400, 500, 700, 1000, 1500}
	mems := []int64{128, 256, 512, 1024, 1536, 2048}
	nGroups := 1 + rng.IntN(3)
	dbPods := 0
	for g := 0; g < nGroups; g++ {
		it := sdTypes[rng.IntN(len(sdTypes))]
		gr := SDGroup{Name: fmt.Sprintf("ng-%d-%s", g, strings.ReplaceAll(it, ".", "-"))}
		gr.InstanceType = it
		size := 1 + rng.IntN(4)
		switch rng.IntN(4) {
		case 0:
			gr.Min = size // at its minimum
		case 1:
			gr.Min = min(1, size)
		default:
			gr.Min = 0
		}
		if gr.Min == size {
			shape["min-size"] = true
		}
		gr.Max = size + 5
		for k := 0; k < size; k++ {
			var nd SDNode
			if rng.IntN(12) == 0 {
				nd.NoScaleDown = true
				shape["scale-down-disabled"] = true
			}
			nPods := rng.IntN(5) // 0: an empty node
			if rng.IntN(10) == 0 {
				nd.Pods = append(nd.Pods, SDPod{Kind: PodPlain, App: "half", HalfCPU: true, MemMi: 256})
				shape["at-threshold"] = true
			}
			for p := 0; p < nPods; p++ {
				kind := kinds[rng.IntN(len(kinds))]
				pod := SDPod{Kind: kind, App: fmt.Sprintf("app%d", rng.IntN(3)), CPUMilli: cpus[rng.IntN(len(cpus))], MemMi: mems[rng.IntN(len(mems))]}
				switch kind {
				case PodPDB:
					pod.App = "db"
					dbPods++
				case PodLocalVolume:
					c.LocalStorage = true
				}
				if kind != PodPlain {
					shape[kind] = true
				}
				nd.Pods = append(nd.Pods, pod)
			}
			gr.Nodes = append(gr.Nodes, nd)
		}
		c.Groups = append(c.Groups, gr)
	}
	if dbPods > 0 {
		// Allow one disruption or none.
		c.PDBMinAvailable = dbPods - rng.IntN(2)
	}
	var parts []string
	for _, k := range []string{"cooldown", "min-size", "scale-down-disabled", "at-threshold", PodBare, PodKubeSystem, PodNotSafe, PodSafeBare, PodPDB, PodLocalVolume} {
		if shape[k] {
			parts = append(parts, k)
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "plain")
	}
	c.Shape = strings.Join(parts, ",")
	return c
}
