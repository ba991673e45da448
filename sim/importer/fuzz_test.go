package importer

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/clustersim/clustersim/sim/kubeexport"
)

// FuzzImport feeds arbitrary bytes to the import reader: it must never
// panic, an error must name the file, and when an error is returned
// nothing is written.
func FuzzImport(f *testing.F) {
	for _, c := range []kubeexport.Cluster{
		{Nodes: 1, Deployments: 1, Replicas: 1, Pending: 1},
		{Nodes: 1, Deployments: 1, Replicas: 1, JSON: true},
		{Nodes: 6, Storage: true},
	} {
		var b bytes.Buffer
		if err := c.Write(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte("apiVersion: v1\nitems: []\nkind: List\n"))
	f.Add([]byte("apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: a}\n"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}]}`))
	for _, s := range mapSeeds {
		f.Add(s)
	}
	f.Add([]byte(smuggled))     // every route a secret could take (issue 30)
	f.Add([]byte(identified())) // the identities --redact replaces
	f.Fuzz(func(t *testing.T, data []byte) {
		im := New(Options{Redact: len(data)%2 == 0}, nil)
		err := im.Add("in.yaml", bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "in.yaml:") {
				t.Fatalf("an error without the file: %v", err)
			}
			return
		}
		var out bytes.Buffer
		err = im.Write(&out)
		if err != nil {
			var ie *Error
			if !errors.As(err, &ie) {
				t.Fatalf("not an import error: %T %v", err, err)
			}
			if out.Len() > 0 {
				t.Fatalf("%d bytes written with an error", out.Len())
			}
		}
	})
}

func init() {
	// Seeds of every kind read as a map, without metadata.
	for _, k := range []string{"apiVersion: karpenter.sh/v1\nkind: NodePool\n", "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nspec: 3\n",
		"apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nnodeGroups: [1, {ssh: x}]\n", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nspec: {selector: 3}\n",
		"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nspec: {scaleTargetRef: 1}\n", "apiVersion: v1\nkind: Namespace\nmetadata: {labels: 3}\n",
		"apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: a}\nspec: {claimRef: {name: c}, nodeAffinity: {required: {nodeSelectorTerms: [{}]}}}\n",
		"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c, ownerReferences: [{kind: Pod, name: p, controller: true}]}\nspec: {volumeName: a}\n",
		"apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: s}\n"} {
		mapSeeds = append(mapSeeds, []byte(k))
	}
}

var mapSeeds [][]byte

func TestMapKindsWithoutMetadata(t *testing.T) {
	for _, s := range mapSeeds {
		for _, redact := range []bool{false, true} {
			im := New(Options{Redact: redact}, nil)
			if err := im.Add("in.yaml", bytes.NewReader(s)); err != nil {
				continue
			}
			var out bytes.Buffer
			_ = im.Write(&out) // must not panic
		}
	}
}
