package lint

import (
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
)

// The reasons a cell gives are worded by the components that own the
// sources (component.LintSource.Judge) and, for static capacity, by the
// same shared wording (component.LintEnv: OnNodes, MismatchWhy, TaintWhy,
// TooBigWhy).

// Label keys the findings single out.
const (
	keyZone         = "topology.kubernetes.io/zone"
	keyInstanceType = "node.kubernetes.io/instance-type"
)

// fmtTaint renders key=value:Effect (key:Effect without a value).
func fmtTaint(syms *cluster.Symbols, t cluster.Taint) string { return component.FormatTaint(syms, t) }

// fmtOp renders a requirement's operator and values: "In [a, b]".
func fmtOp(syms *cluster.Symbols, r *cluster.Requirement) string { return component.FormatOp(syms, r) }
