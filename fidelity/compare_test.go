package fidelity

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Unschedulable pods are compared per template: which replica of a
// template is left over is a tie, how many are left is not.
func TestUnschedulableComparedPerTemplate(t *testing.T) {
	for _, tc := range []struct {
		ours, up []string
		equal    bool
	}{
		{[]string{"app1-3"}, []string{"app1-0"}, true},
		{[]string{"app1-3", "app0-1"}, []string{"app0-4", "app1-0"}, true},
		{[]string{"app1-3"}, []string{"app2-0"}, false},
		{[]string{"app1-3", "app1-4"}, []string{"app1-0"}, false},
		{nil, []string{"app1-0"}, false},
	} {
		r := &Result{Ours: Outcome{Unschedulable: tc.ours}, Up: Outcome{Unschedulable: tc.up}}
		r.score()
		require.Equal(t, tc.equal, r.UnschedEqual, "%v vs %v", tc.ours, tc.up)
	}
}
