package statedump_test

import (
	"bytes"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/statedump"
)

func TestNamesAndIDs(t *testing.T) {
	require.Equal(t, "720h", statedump.Duration(720*time.Hour))
	require.Equal(t, "1h30m", statedump.Duration(90*time.Minute))
	require.Equal(t, "30s", statedump.Duration(30*time.Second))
	require.Equal(t, "2m5s", statedump.Duration(125*time.Second))

	h := statedump.TemplateHash("shop", "web")
	require.Regexp(t, `^[bcdfghjklmnpqrstvwxz2456789]{10}$`, h)
	require.Equal(t, h, statedump.TemplateHash("shop", "web"))
	require.NotEqual(t, h, statedump.TemplateHash("shop", "api"))

	uid := string(statedump.UID("Pod", "shop", "web-1"))
	require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`), uid)
	require.NotEqual(t, uid, string(statedump.UID("Pod", "shop", "web-2")))

	require.Equal(t, "i-0000000000000002a", statedump.InstanceID(&cluster.Node{Instance: 42}, 7))
	static := statedump.InstanceID(&cluster.Node{}, 7)
	require.Equal(t, "i-01000000000000007", static)
	require.NotEqual(t, static, statedump.InstanceID(&cluster.Node{Instance: 7}, 7), "a static node's ID is no instance's")
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestEmptyClusterAndWriteErrors(t *testing.T) {
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	in := statedump.Input{Cluster: cl, Epoch: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)}
	var buf bytes.Buffer
	require.NoError(t, statedump.Write(&buf, in))
	require.Equal(t, "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n", buf.String())
	require.EqualError(t, statedump.Write(failing{}, in), "disk full")
}

// The Karpenter queue's tie-break (cluster.PodUIDRank) orders pods as
// upstream orders the uids this dump writes (as strings).
func TestPodUIDRankOrdersAsDumpedUIDs(t *testing.T) {
	names := []string{"web-1", "web-2", "web-3", "app-2-1", "app-2-2", "a", "b", "job-7-x", "db-0", "db-1"}
	for _, ns := range []string{"default", "shop"} {
		for _, a := range names {
			for _, b := range names {
				ua, ub := string(statedump.UID("Pod", ns, a)), string(statedump.UID("Pod", ns, b))
				ra, rb := cluster.PodUIDRank(ns, a), cluster.PodUIDRank(ns, b)
				require.Equal(t, ua < ub, ra < rb, "%s/%s (%s) vs %s (%s)", ns, a, ua, b, ub)
			}
		}
	}
}
