package karpenter

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// The same scenario gives the same decisions, whatever order symbols were
// interned in before (label maps are compiled in map order elsewhere).
func TestDeterminism(t *testing.T) {
	run := func(preIntern []string) string {
		h := newHarness(t)
		for _, s := range preIntern {
			h.cl.Syms.Intern(s)
		}
		h.cloud.exhaust = func(o cloud.Offering) bool { return o.CapacityType == cluster.Spot && o.Zone == "us-east-1b" }
		h.deploy("spread", h.podSpec("700m", "1Gi", map[string]string{"app": "spread"}, withZoneSpread("spread")), time.Duration(0), 9, 20*time.Minute, 3)
		h.deploy("anti", h.podSpec("250m", "256Mi", map[string]string{"app": "anti"}, withHostAntiAffinity("anti")), time.Duration(0), 3)
		h.deploy("web", h.podSpec("1", "2Gi", map[string]string{"app": "web"}), time.Duration(0), 6, 30*time.Minute, 1)
		h.start(h.pools(spotWide), apis.DefaultSettings())
		h.run(2 * time.Hour)
		var b strings.Builder
		for i := range h.cl.Nodes {
			n := &h.cl.Nodes[i]
			fmt.Fprintf(&b, "%s %s %s %s %v %v %v\n", n.Name, n.InstanceType, h.cl.Syms.Name(n.Zone), n.CapacityType, n.Launched, n.Ready, n.Deleted)
		}
		js, err := json.Marshal(h.k.Stats())
		require.NoError(t, err)
		b.Write(js)
		return b.String()
	}
	a := run(nil)
	b := run(nil)
	c := run([]string{"us-east-1c", "us-east-1b", "us-east-1a", "app", "spread", "anti", "web", "kubernetes.io/hostname"})
	require.Equal(t, a, b)
	require.Equal(t, a, c)
}
