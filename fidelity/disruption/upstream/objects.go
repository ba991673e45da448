package upstream

import (
	"encoding/json"
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	disruptionfidelity "github.com/clustersim/clustersim/fidelity/disruption"
)

// FromObjects is base with its objects replaced by objs: the state the
// other side reached, for NewAt. The settings (name, shape, SpotToSpot, NodeRepair,
// NodeClassHash, Types) are base's.
func FromObjects(base *disruptionfidelity.Case, objs []client.Object) (*disruptionfidelity.Case, error) {
	c := &disruptionfidelity.Case{Name: base.Name, Shape: base.Shape, SpotToSpot: base.SpotToSpot, NodeRepair: base.NodeRepair, Static: base.Static,
		NodeClassHash: base.NodeClassHash, Types: base.Types}
	for _, o := range objs {
		switch o := o.(type) {
		case *karpv1.NodePool:
			c.Pools = append(c.Pools, o)
		case *karpv1.NodeClaim:
			c.NodeClaims = append(c.NodeClaims, o)
		case *corev1.Node:
			c.Nodes = append(c.Nodes, o)
		case *appsv1.Deployment:
			c.Deployments = append(c.Deployments, o)
		case *appsv1.ReplicaSet:
			c.ReplicaSets = append(c.ReplicaSets, o)
		case *appsv1.DaemonSet:
			c.DaemonSets = append(c.DaemonSets, o)
		case *corev1.Pod:
			c.Pods = append(c.Pods, o)
		case *policyv1.PodDisruptionBudget:
			c.PDBs = append(c.PDBs, o)
		default:
			return nil, fmt.Errorf("%s: %T %s: kind not part of a case", base.Name, o, o.GetName())
		}
	}
	return c, nil
}

// FromList is FromObjects for a `kubectl get -o json` List (the case
// export's format). An EC2NodeClass item sets NodeClassHash from its
// hash annotation; other kinds not part of a case are an error.
func FromList(base *disruptionfidelity.Case, data []byte) (*disruptionfidelity.Case, error) {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s: reading the list: %w", base.Name, err)
	}
	decoder := serializer.NewCodecFactory(clientScheme()).UniversalDeserializer()
	var objs []client.Object
	hash := base.NodeClassHash
	var unknown []string
	for _, raw := range list.Items {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name        string            `json:"name"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, fmt.Errorf("%s: reading an item: %w", base.Name, err)
		}
		if head.Kind == ec2NodeClassGVK.Kind {
			if h, ok := head.Metadata.Annotations[disruptionfidelity.NodeClassHashKey]; ok {
				hash = h
			}
			continue
		}
		o, _, err := decoder.Decode(raw, nil, nil)
		if err != nil {
			unknown = append(unknown, head.APIVersion+"/"+head.Kind)
			continue
		}
		co, ok := o.(client.Object)
		if !ok {
			return nil, fmt.Errorf("%s: %s %s is not an object", base.Name, head.Kind, head.Metadata.Name)
		}
		objs = append(objs, co)
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s: kinds not part of a case: %v", base.Name, unknown)
	}
	c, err := FromObjects(base, objs)
	if err != nil {
		return nil, err
	}
	c.NodeClassHash = hash
	return c, nil
}
