package importer

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	corev1 "k8s.io/api/core/v1"
)

// The line reader of pods agrees with a full decode on every pod of a
// realistic export (running, pending, terminating, finished; owned by
// ReplicaSets, a StatefulSet, a Job, a DaemonSet; a bare pod).
func TestPodLiteAgreesWithDecode(t *testing.T) {
	in := []byte(export(t, small))
	n := 0
	require.NoError(t, scan(bytes.NewReader(in), func(it *item) error {
		if it.kind != "Pod" {
			return nil
		}
		n++
		var fast podLite
		require.True(t, fast.fromYAML(it.yamlText), "line %d", it.line)
		var p corev1.Pod
		require.NoError(t, it.decode(&p))
		want := liteOf(&p)
		if want.Metadata.DeletionTimestamp != nil {
			require.NotNil(t, fast.Metadata.DeletionTimestamp)
			want.Metadata.DeletionTimestamp = fast.Metadata.DeletionTimestamp
		}
		require.Equal(t, want, fast, "line %d", it.line)
		return nil
	}))
	require.Greater(t, n, 20)
}

// What the line reader does not recognise is decoded in full.
func TestPodLiteFallsBack(t *testing.T) {
	for _, y := range []string{
		"metadata: {name: p, namespace: default}\nspec: {nodeName: n}\n",
		"metadata:\n  name: &a p\n",
		"metadata:\n  name: p # a comment\n",
		"metadata:\n  ownerReferences: [{kind: ReplicaSet, name: r, controller: true}]\n  name: p\n",
		"metadata:\n  ownerReferences:\n  - kind: ReplicaSet\n    controller: yes\n  name: p\n",
	} {
		var p podLite
		require.False(t, p.fromYAML([]byte(y)), y)
	}
	var p podLite
	require.True(t, p.fromYAML([]byte("metadata:\n  name: 'it''s'\n  namespace: \"a\\tb\"\n")))
	require.Equal(t, "it's", p.Metadata.Name)
	require.Equal(t, "a\tb", p.Metadata.Namespace)
}
