package report

// The in-tree components, registered as cmd/sim registers them.
import _ "github.com/clustersim/clustersim/sim/component/builtin"
