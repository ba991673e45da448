package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/engine"
)

type fixedClock struct{}

func (fixedClock) Now() engine.Time { return 0 }

// The tracked counts give DisruptionsAllowed the same answer as a walk over
// every pod, through any sequence of pod changes.
func TestTrackedPDBsMatchTheWalk(t *testing.T) {
	c := New(fixedClock{}, NewSymbols(), NewResourceNames())
	sel, err := CompileLabelSelector(c.Syms, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}})
	require.NoError(t, err)
	ns := c.Syms.Intern("default")
	budgets := []PDB{
		{Namespace: ns, Name: "min", Selector: sel, MinAvailable: &IntOrPercent{Value: 2}},
		{Namespace: ns, Name: "max", Selector: sel, MaxUnavailable: &IntOrPercent{Value: 30, Percent: true}},
	}
	var alloc Resources
	alloc[CPU], alloc[Pods] = 1_000_000, 1000
	node := c.AddNode(Node{Name: "n", Allocatable: alloc, State: NodeReady})
	db := &PodSpec{Labels: CompileLabels(c.Syms, map[string]string{"app": "db"})}
	web := &PodSpec{Labels: CompileLabels(c.Syms, map[string]string{"app": "web"})}
	c.CreatePod(Pod{Name: "before", Namespace: ns, Spec: db}) // exists before tracking
	c.TrackPDBs(budgets)

	positive := map[string]int{}
	rng := rand.New(rand.NewPCG(1, 2))
	for step := range 3000 {
		n := len(c.Pods)
		id := PodID(rng.IntN(n))
		p := &c.Pods[id]
		switch op := rng.IntN(12); {
		case (op < 3 && n < 60) || n < 5:
			spec := db
			if rng.IntN(3) == 0 {
				spec = web
			}
			c.CreatePod(Pod{Name: fmt.Sprint("p", n), Namespace: ns, Spec: spec})
		case op < 6 && p.Phase == Pending:
			c.Bind(id, node)
		case op < 9 && p.Phase == Bound:
			c.StartPod(id)
		case op == 9 && p.Phase.OnNode():
			c.MarkTerminating(id)
		case op == 10 && p.Phase == Running:
			c.FinishPod(id, Succeeded)
		case op == 11:
			c.DeletePod(id, CauseEvicted)
		}
		for _, b := range budgets {
			walked := b
			walked.Name += "-untracked"
			got := b.DisruptionsAllowed(c)
			require.Equal(t, walked.DisruptionsAllowed(c), got, "step %d, budget %s", step, b.Name)
			if got > 0 {
				positive[b.Name]++
			}
		}
	}
	require.Positive(t, positive["min"], "the sequence reaches states where evictions are allowed")
	require.Positive(t, positive["max"])
}
