package lint

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/scenario"
)

// loadBlockers loads testdata/blockers with each old string of edits
// replaced by the next.
func loadBlockers(t *testing.T, edits ...string) Result {
	t.Helper()
	fs := fstest.MapFS{}
	for _, f := range []string{"scenario.yaml", "nodepools.yaml", "frontend.yaml"} {
		b, err := os.ReadFile("testdata/blockers/" + f)
		require.NoError(t, err)
		s := string(b)
		for i := 0; i+1 < len(edits); i += 2 {
			s = strings.ReplaceAll(s, edits[i], edits[i+1])
		}
		fs[f] = &fstest.MapFile{Data: []byte(s)}
	}
	sc, err := scenario.LoadFS(fs, "scenario.yaml")
	require.NoError(t, err)
	return Check(sc)
}

// The web team's frontend needs its own pool, whose CPU limit is 0; the
// other two pools are tainted for their teams. The nearest single reason
// is batch's taint, but tolerating it only shows batch's next blocker
// (its team label), and the nearest then is ml's taint: a chain that
// leads nowhere. The fix names the pool with the fewest blockers, web,
// and raising its limit is enough.
func TestUnhostableFixConverges(t *testing.T) {
	tolerateBatch := []string{"      nodeSelector: {team: web}\n", "      nodeSelector: {team: web}\n      tolerations: [{key: team, operator: Equal, value: batch, effect: NoSchedule}]\n"}
	r := loadBlockers(t, tolerateBatch...)
	batch := cellOf(t, r, "Deployment/default/frontend", "", "NodePool/batch (on-demand)")
	require.False(t, batch.CanLand)
	require.Equal(t, "label", batch.ReasonKind, "tolerating batch's taint leaves its label in the way")
	require.Equal(t, "taint", cellOf(t, r, "Deployment/default/frontend", "", "NodePool/ml (on-demand)").ReasonKind)

	r = loadBlockers(t)
	fs := findingsOf(r, KindUnhostable)
	require.Len(t, fs, 1)
	require.True(t, strings.HasPrefix(fs[0].Fix, "for example, let NodePool/web (on-demand) take it (NodePool limit: NodePool/web's spec.limits leave room for none of the "), fs[0].Fix)
	require.True(t, strings.HasSuffix(fs[0].Fix, " instance types that fit): raise NodePool/web's spec.limits"), fs[0].Fix)

	r = loadBlockers(t, `cpu: "0"`, `cpu: "100"`)
	require.Empty(t, findingsOf(r, KindUnhostable), "raising the limit is enough")
}

// With web's label changed, every pool is two blockers away: web's label
// and limit, batch's and ml's taint and label. The fix takes the nearest
// first blocker (a taint), batch first in matrix order, lists both of its
// blockers, and lifting both hosts the pods.
func TestUnhostableFixListsEveryBlocker(t *testing.T) {
	offWeb := []string{"labels: {team: web}", "labels: {team: web-off}"}
	r := loadBlockers(t, offWeb...)
	fs := findingsOf(r, KindUnhostable)
	require.Len(t, fs, 1)
	require.Contains(t, fs[0].Fix, "let NodePool/batch (on-demand) take it; it has 2 blockers, lift them all: "+
		"(1) untolerated taint team=batch:NoSchedule: add the toleration {key: team, operator: Equal, value: batch, effect: NoSchedule} to its pod template; "+
		"(2) needs label team=web; NodePool/batch has team In [batch]: make the pod's and NodePool/batch's values of team meet")

	r = loadBlockers(t, append(offWeb, "      nodeSelector: {team: web}\n", "      nodeSelector: {team: batch}\n      tolerations: [{key: team, operator: Equal, value: batch, effect: NoSchedule}]\n")...)
	require.Empty(t, findingsOf(r, KindUnhostable))
}
