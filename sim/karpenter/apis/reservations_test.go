package apis

import (
	"testing"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// odcrNodeClass is the Karpenter docs' example (karpenter.sh/docs/tasks/
// odcrs, "Selecting Capacity Reservations"): every reservation tagged
// application: foobar, and cr-56fac701cc1951b03; with the NodePool
// requirement the task gives to prefer them and fall back to on-demand.
const odcrNodeClass = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  capacityReservationSelectorTerms:
    - tags:
        application: foobar
    - id: cr-56fac701cc1951b03
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ['reserved', 'on-demand']
`

func TestReservationTermsFromDocs(t *testing.T) {
	res, _, err := compileYAML(t, "odcr.yaml", odcrNodeClass)
	require.NoError(t, err)
	require.Empty(t, warningTexts(res))
	nc := &res.NodePools[0].NodeClass
	require.Len(t, nc.ReservationTerms, 2)
	for _, c := range []struct {
		r    cloud.Reservation
		want bool
	}{
		{cloud.Reservation{ID: "cr-56fac701cc1951b03"}, true},
		{cloud.Reservation{ID: "cr-0a", Tags: map[string]string{"application": "foobar", "team": "ml"}}, true},
		{cloud.Reservation{ID: "cr-0b", Tags: map[string]string{"application": "other"}}, false},
		{cloud.Reservation{ID: "cr-0c"}, false},
	} {
		assert.Equal(t, c.want, nc.SelectsReservation(&c.r), c.r.ID)
	}
	// A wildcard tag, an owner and the match criteria narrow a term.
	term := ReservationTerm{Tags: map[string]string{"team": "*"}, OwnerID: "123456789012", InstanceMatchCriteria: "targeted"}
	assert.True(t, term.Selects(&cloud.Reservation{Tags: map[string]string{"team": "ml"}, OwnerID: "123456789012", MatchCriteria: "targeted"}))
	assert.False(t, term.Selects(&cloud.Reservation{Tags: map[string]string{"team": "ml"}, MatchCriteria: "targeted"}), "another account's term")
	assert.False(t, term.Selects(&cloud.Reservation{Tags: map[string]string{"team": "ml"}, OwnerID: "123456789012", MatchCriteria: "open"}))
}

// The CRD's rules on capacityReservationSelectorTerms are errors at the
// term (KA ec2nodeclass.go XValidation and patterns).
func TestReservationTermsRules(t *testing.T) {
	const bad = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  capacityReservationSelectorTerms:
    - {id: cr-56fac701cc1951b03, ownerID: "123456789012"}
    - {id: CR-1}
    - {ownerID: "123456789012"}
    - {tags: {team: ""}, instanceMatchCriteria: sometimes}
    - {tags: {team: ml}, ownerID: "12345"}
`
	_, _, err := compileYAML(t, "bad.yaml", bad)
	require.Error(t, err)
	for _, want := range []string{
		"bad.yaml:10: spec.capacityReservationSelectorTerms[0]: 'id' is mutually exclusive",
		"bad.yaml:11: spec.capacityReservationSelectorTerms[1].id: \"CR-1\" does not match ^cr-[0-9a-z]+$",
		"bad.yaml:12: spec.capacityReservationSelectorTerms[2]: expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']",
		"spec.capacityReservationSelectorTerms[3].instanceMatchCriteria: unknown instance match criteria \"sometimes\"",
		"spec.capacityReservationSelectorTerms[3].tags: empty tag keys or values aren't supported",
		"spec.capacityReservationSelectorTerms[4].ownerID: \"12345\" does not match ^[0-9]{12}$",
	} {
		assert.Contains(t, err.Error(), want)
	}
}
