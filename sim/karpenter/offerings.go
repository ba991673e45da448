package karpenter

import (
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// offerings is what Karpenter knows of EC2's offerings (KA instance-type,
// pricing and offering providers): the instance types of the region, their
// offerings per zone and capacity type with prices, and the
// insufficient-capacity cache of offerings that recently failed.
type offerings struct {
	env
	region   string
	zones    []string
	zoneSyms []cluster.Sym
	ctSyms   [numCT]cluster.Sym

	types      []*itype
	typeByName map[string]*itype
	typeKey    [numTypeKeys]cluster.Sym
	typeKeyOf  []int8 // Sym -> index in typeKey, -1 for other keys
	gpuSlot    int
	off        offers
	// availBuf is availMasks' answer, kept while the time and the table's
	// version stay the same.
	availBuf     []uint64
	availOK      bool
	availAt      engine.Time
	availVersion uint64
	// deferICE: a batch is launching; capacity errors wait in iceQueue
	// until it is done (flushICE).
	deferICE bool
	iceQueue []cloud.Offering
}
