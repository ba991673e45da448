package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/kubeexport"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// withStorage is small plus storage classes, volumes, claims and pods
// that use them.
var withStorage = func() kubeexport.Cluster { c := small; c.Storage = true; return c }()

// claimZones runs an imported scenario for d and returns, per claim
// (namespace/name), the zone of its volume and, per pod using it, the
// zone of the pod's node. A claim whose volume the run provisioned (not
// one of the manifests) says so.
func claimZones(t *testing.T, sc *scenario.Scenario, d time.Duration) (claims, pods map[string]string) {
	t.Helper()
	s, err := simulation.Start(sc, simulation.Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(d))
	cl := s.Cluster()
	claims, pods = map[string]string{}, map[string]string{}
	for i := range cl.Pods {
		p := &cl.Pods[i]
		if p.Phase.Terminal() {
			continue
		}
		for _, id := range cl.ClaimsOf(cluster.PodID(i)) {
			name := cl.ClaimName(id)
			vol := cl.VolumeOf(id)
			if vol == nil {
				claims[name] = "unbound"
				continue
			}
			claims[name] = cluster.ZoneNames(cl.Syms, vol.Zones)
			if vol.Provisioned {
				claims[name] += " (provisioned in the run, not the exported volume)"
			}
			if p.Node != cluster.NoNode {
				pods[name] = cl.Syms.Name(cl.Nodes[p.Node].Zone)
			}
		}
	}
	return claims, pods
}

func TestImportStorage(t *testing.T) {
	importBoth(t, withStorage, func(t *testing.T, _ kubeexport.Cluster, out []byte, im *Importer) {
		s := string(out)
		require.NotContains(t, s, kubeexport.Secret)
		for _, gone := range []string{"kmsKeyId", "bind-completed", "selected-node", "pvc-protection", "phase: Bound", "csiProvisionerIdentity", "provisioned-by"} {
			require.NotContains(t, s, gone)
		}
		all := strings.Join(notices(im), "\n")
		require.Contains(t, all, `Pod/data/toolbox: volume "scratch" names PersistentVolumeClaim data/scratch, which is not in the export: the volume is dropped and the pod kept; it schedules as if the volume were in every zone`)
		require.Contains(t, all, "1 generic ephemeral volume claim(s) of controllers' pods left out")
		require.NotContains(t, s, "cache-7d9f0-abcde", "the Deployment pod's ephemeral claim and its volume are left out")

		sc, err := scenario.LoadManifests("imported.yaml", out, nil)
		require.NoError(t, err)
		require.NotNil(t, sc.Storage)
		require.Len(t, sc.Storage.Classes, 1)
		require.Equal(t, cluster.WaitForFirstConsumer, sc.Storage.Classes[0].Mode)
		require.Len(t, sc.Storage.Volumes, 5)
		require.Len(t, sc.Storage.Claims, 5)

		claims, pods := claimZones(t, sc, 10*time.Second)
		for o, n := range kubeexport.StorageNodes {
			name := fmt.Sprintf("data/data-pg-%d", o)
			require.Equal(t, kubeexport.ZoneOf(n), claims[name], name)
			require.Equal(t, kubeexport.ZoneOf(n), pods[name], name)
		}
		require.Equal(t, kubeexport.ZoneOf(2), claims["data/toolbox-home"])
		require.Equal(t, kubeexport.ZoneOf(2), claims["data/toolbox-tmp"], "the bare pod's ephemeral claim is its exported one")
		bound := boundAt(t, sc)
		require.Equal(t, []string{kubeexport.NodeName(2)}, bound["Pod/data/toolbox"])
	})
}

// A StatefulSet pod whose node is not in the export starts pending and
// comes back in its volume's zone: the import kept its claim, bound to
// the volume, and the volume's zone.
func TestImportedClaimKeepsItsZone(t *testing.T) {
	c := withStorage
	c.JSON = true
	var in bytes.Buffer
	require.NoError(t, c.Write(&in))
	var list map[string]any
	require.NoError(t, json.Unmarshal(in.Bytes(), &list))
	gone := kubeexport.NodeName(kubeexport.StorageNodes[1]) // pg-1's node
	var items []any
	for _, it := range list["items"].([]any) {
		md := it.(map[string]any)["metadata"].(map[string]any)
		if it.(map[string]any)["kind"] == "Node" && md["name"] == gone {
			continue
		}
		items = append(items, it)
	}
	list["items"] = items
	data, err := json.Marshal(list)
	require.NoError(t, err)
	out, _ := importFile(t, "cluster.json", bytes.NewReader(data), Options{})
	sc, err := scenario.LoadManifests("imported.yaml", out, nil)
	require.NoError(t, err)
	claims, pods := claimZones(t, sc, time.Minute)
	zone := kubeexport.ZoneOf(kubeexport.StorageNodes[1])
	require.Equal(t, zone, claims["data/data-pg-1"])
	require.Equal(t, zone, pods["data/data-pg-1"], "pg-1 is rescheduled in its volume's zone")
	bound := boundAt(t, sc)
	require.Contains(t, bound["StatefulSet/data/pg"], kubeexport.NodeName(0), "the other node of %s", zone)
}

func TestImportStorageRedact(t *testing.T) {
	out, _ := importExport(t, withStorage, Options{Redact: true})
	s := string(out)
	for _, leak := range []string{"name: pg", "toolbox", "name: gp3", "storageClassName: gp3", "data-pg", "name: data\n", "volumeHandle: vol-0", "pvc-0000d15c"} {
		if strings.Contains(s, leak) {
			t.Errorf("the redacted import holds %q", leak)
		}
	}
	sc, err := scenario.LoadManifests("redacted.yaml", out, nil)
	require.NoError(t, err)
	ns := hash("ns-", "data")
	pg := hash("w-", "pg")
	claims, pods := claimZones(t, sc, 10*time.Second)
	for o, n := range kubeexport.StorageNodes {
		// The StatefulSet's claim follows its renamed template and name,
		// so the model finds the exported claim (bound in its zone), not
		// a new one.
		name := fmt.Sprintf("%s/%s-%s-%d", ns, hash("vct-", "data"), pg, o)
		require.Equal(t, kubeexport.ZoneOf(n), claims[name], name)
		require.Equal(t, kubeexport.ZoneOf(n), pods[name], name)
	}
	tb := hash("w-", "toolbox")
	require.Equal(t, kubeexport.ZoneOf(2), claims[ns+"/"+hash("pvc-", "toolbox-home")])
	require.Equal(t, kubeexport.ZoneOf(2), claims[ns+"/"+tb+"-"+hash("vol-", "tmp")], "the ephemeral claim follows its renamed pod and volume")
	require.Len(t, claims, 5, "no claim was created anew: %v", claims)
	require.Equal(t, sc.Storage.Volumes[0].ClaimName, sc.Storage.Claims[0].Name) // sorted alike: claimRef and name agree
}

func TestImportStorageBadInput(t *testing.T) {
	pvc := func(name, volume string) string {
		return fmt.Sprintf(`apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: %s
  namespace: data
spec:
  storageClassName: fast
  volumeName: %q
  accessModes: [ReadWriteOnce]
`, name, volume)
	}
	t.Run("bound to a volume not exported", func(t *testing.T) {
		out, im := importFile(t, "pvcs.yaml", strings.NewReader(pvc("a", "pv-gone")), Options{})
		all := strings.Join(notices(im), "\n")
		require.Contains(t, all, "pvcs.yaml:1: PersistentVolumeClaim/data/a: bound to PersistentVolume pv-gone, which is not in the export: written unbound")
		require.Contains(t, all, "StorageClass/fast: not in the export: written with provisioner ebs.csi.aws.com and volumeBindingMode WaitForFirstConsumer")
		require.NotContains(t, string(out), "pv-gone")
		_, err := scenario.LoadManifests("imported.yaml", out, nil)
		require.NoError(t, err)
	})
	t.Run("storage API version not read", func(t *testing.T) {
		err, _ := importErr2(t, "sc.yaml", "apiVersion: storage.k8s.io/v1beta1\nkind: StorageClass\nmetadata:\n  name: old\nprovisioner: ebs.csi.aws.com\n")
		require.ErrorContains(t, err, `sc.yaml:1: StorageClass/old: apiVersion "storage.k8s.io/v1beta1" is not read (read: storage.k8s.io/v1)`)
	})
	t.Run("two claims of one name", func(t *testing.T) {
		err, _ := importErr2(t, "pvcs.yaml", pvc("a", "")+"---\n"+pvc("a", ""))
		require.ErrorContains(t, err, "PersistentVolumeClaim/data/a: a second PersistentVolumeClaim of this name")
	})
	t.Run("a claim that cannot decode", func(t *testing.T) {
		err, _ := importErr2(t, "pvcs.yaml", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: a\nspec:\n  accessModes: 5\n")
		require.ErrorContains(t, err, "pvcs.yaml:1: PersistentVolumeClaim/a: cannot decode: json: cannot unmarshal number into Go struct field PersistentVolumeClaimSpec.spec.accessModes")
	})
}

func importErr2(t *testing.T, name, text string) (error, string) {
	t.Helper()
	im := New(Options{}, nil)
	if err := im.Add(name, strings.NewReader(text)); err != nil {
		return err, ""
	}
	var out strings.Builder
	err := im.Write(&out)
	return err, out.String()
}
