package scheduler

import (
	"github.com/clustersim/clustersim/sim/cluster"
)

// Label columns: per label key a plugin asks for (topology keys), every
// node's value of it by NodeID, refreshed on every node change (labels
// change only through the cluster, which reports it). The spread plugin
// reads a feasible node's domain from here instead of scanning the node's
// labels, once per soft constraint per feasible node per cycle.

// labelVal is a node's value of one key; ok is false when it has none.
type labelVal struct {
	v  cluster.Sym
	ok bool
}

type labelColumn struct {
	key  cluster.Sym
	vals []labelVal // by NodeID
}

func (col *labelColumn) refresh(cl *cluster.Cluster, id cluster.NodeID) {
	for int(id) >= len(col.vals) {
		col.vals = append(col.vals, labelVal{})
	}
	v, ok := cl.Nodes[id].Labels.Get(col.key)
	col.vals[id] = labelVal{v, ok}
}

// labelColumns is implemented by the Scheduler.
type labelColumns interface {
	// labelColumn returns every node's value of key by NodeID, valid
	// until the next cluster change.
	labelColumn(key cluster.Sym) []labelVal
}

func (s *Scheduler) labelColumn(key cluster.Sym) []labelVal {
	for _, col := range s.labelCols {
		if col.key == key {
			return col.vals
		}
	}
	col := &labelColumn{key: key}
	for id := range s.cl.Nodes {
		col.refresh(s.cl, cluster.NodeID(id))
	}
	s.labelCols = append(s.labelCols, col)
	return col.vals
}

// labelsChanged refreshes a node's entry in every column.
func (s *Scheduler) labelsChanged(id cluster.NodeID) {
	for _, col := range s.labelCols {
		col.refresh(s.cl, id)
	}
}
