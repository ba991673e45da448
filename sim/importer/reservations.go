package importer

import (
	"regexp"
	"sort"
)

// reservationEntry is one of spec.market.reservations as the import
// writes it.
type reservationEntry struct {
	ID            string `json:"id"`
	InstanceType  string `json:"instanceType"`
	Zone          string `json:"zone"`
	Count         int    `json:"count"`
	Type          string `json:"type,omitempty"`
	Interruptible bool   `json:"interruptible,omitempty"`
}

type marketEntry struct {
	Reservations []reservationEntry `json:"reservations,omitempty"`
}

var reservationID = regexp.MustCompile(`^cr-[0-9a-z]+$`)

// inferReservations lists the capacity reservations the export's
// reserved nodes run in (karpenter.k8s.aws/capacity-reservation-id and
// its type and interruptible labels), each as large as the nodes in it:
// a cluster export has no reservation's size, end or tags, so a notice
// asks for them. Without the entry the loader could not adopt the nodes
// as Karpenter's.
func (im *Importer) inferReservations() []reservationEntry {
	byID := map[string]*reservationEntry{}
	var at map[string]where
	names := make([]string, 0, len(im.nodes))
	for name := range im.nodes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		n := im.nodes[name]
		md, _ := n.out["metadata"].(map[string]any)
		labels, _ := md["labels"].(map[string]string)
		id := labels["karpenter.k8s.aws/capacity-reservation-id"]
		if labels["karpenter.sh/capacity-type"] != "reserved" || id == "" {
			continue
		}
		if !reservationID.MatchString(id) {
			im.notice(n.where, "Node/"+name, "capacity reservation id %q is not an EC2 id (redacted?): the node stays static; list its reservation in spec.market.reservations", id)
			continue
		}
		e := byID[id]
		if e == nil {
			e = &reservationEntry{ID: id, InstanceType: labels["node.kubernetes.io/instance-type"], Zone: labels["topology.kubernetes.io/zone"]}
			if t := labels["karpenter.k8s.aws/capacity-reservation-type"]; t == "capacity-block" {
				e.Type = t
			}
			e.Interruptible = labels["karpenter.k8s.aws/capacity-reservation-interruptible"] == "true"
			byID[id] = e
			if at == nil {
				at = map[string]where{}
			}
			at[id] = n.where
		}
		e.Count++
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]reservationEntry, 0, len(ids))
	for _, id := range ids {
		e := byID[id]
		im.notice(at[id], "CapacityReservation/"+id, "%d reserved node(s) run in it: written to spec.market.reservations with count %d; its real size, end time, tags and owner are not in a cluster export, so set them (an +override file) for Karpenter to launch into it as it does",
			e.Count, e.Count)
		out = append(out, *e)
	}
	return out
}
