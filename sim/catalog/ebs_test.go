package catalog

import (
	"strings"
	"testing"
)

// TestEBSVolumeLimit checks the attach limit of representative types
// against the EBS CSI driver's rule (getVolumesLimit: table maximum, minus
// the root volume, minus attached ENIs beyond the first when shared).
func TestEBSVolumeLimit(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		typ       string
		max       int
		dedicated bool
		limit     int // primary ENI only
		limit3    int // three ENIs attached
	}{
		{"m5.large", 27, false, 26, 24},       // Nitro, not in the driver's table: default 27 shared
		{"c5d.4xlarge", 26, false, 25, 23},    // one NVMe instance store takes a shared slot
		{"m5d.24xlarge", 23, false, 22, 20},   // four NVMe instance stores
		{"i4i.32xlarge", 19, false, 18, 16},   // eight
		{"t2.micro", 39, true, 38, 38},        // Xen
		{"m4.large", 39, true, 38, 38},        // Xen
		{"c4.xlarge", 39, true, 38, 38},       // Xen
		{"m7i.large", 32, true, 31, 31},       // dedicated (7th generation Intel)
		{"m7i.48xlarge", 128, true, 127, 127}, // dedicated, large
		{"m8g.large", 32, true, 31, 31},       // dedicated (Graviton4)
		{"i7i.metal-24xl", 39, true, 38, 38},  // the API says shared, the driver overrides to dedicated
		{"c7gd.large", 26, false, 25, 23},     // Graviton3 with NVMe: still shared
		{"x2idn.metal", 31, false, 30, 28},    // bare metal: 31 shared
	} {
		it, ok := c.Lookup(tc.typ)
		if !ok {
			t.Errorf("%s: not in the catalog", tc.typ)
			continue
		}
		if it.EBS.Max != tc.max || it.EBS.Dedicated != tc.dedicated {
			t.Errorf("%s: EBS = %+v, want max %d dedicated %v", tc.typ, it.EBS, tc.max, tc.dedicated)
		}
		if got := it.EBSVolumeLimit(); got != tc.limit {
			t.Errorf("%s: EBSVolumeLimit() = %d, want %d", tc.typ, got, tc.limit)
		}
		if got := it.EBSVolumeLimitWithENIs(3); got != tc.limit3 {
			t.Errorf("%s: EBSVolumeLimitWithENIs(3) = %d, want %d", tc.typ, got, tc.limit3)
		}
	}
}

// TestEBSVolumeLimitFloor: the limit never drops below 1, which
// Kubernetes would read as unlimited.
func TestEBSVolumeLimitFloor(t *testing.T) {
	it := &InstanceType{Name: "x.large", EBS: EBSAttachments{Max: 4}}
	if got := it.EBSVolumeLimitWithENIs(10); got != 1 {
		t.Errorf("EBSVolumeLimitWithENIs(10) with max 4 = %d, want 1", got)
	}
}

// TestEBSTableAgreesWithHypervisor: every type Karpenter labels as Xen
// has the driver's Xen limit.
func TestEBSTableAgreesWithHypervisor(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	var xen, dedicated int
	for _, it := range c.Types() {
		h, _ := it.Label("karpenter.k8s.aws/instance-hypervisor")
		if h == "xen" {
			xen++
			if it.EBS.Max != XenEBSAttachments || !it.EBS.Dedicated {
				t.Errorf("%s: Xen type with EBS %+v, want %d dedicated", it.Name, it.EBS, XenEBSAttachments)
			}
		}
		if it.EBS.Dedicated {
			dedicated++
		}
	}
	if xen == 0 || dedicated == 0 {
		t.Errorf("xen types %d, dedicated types %d: want some of each", xen, dedicated)
	}
}

func TestParseEBSAttachmentsErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"instance_type,max\n", "header is"},
		{"instance_type,max_attachments,limit_type\nm5.large,x,shared\n", `line 2: max_attachments: "x" is not an integer`},
		{"instance_type,max_attachments,limit_type\nm5.large,27,both\n", `line 2: limit_type: "both"`},
		{"instance_type,max_attachments,limit_type\nm5.large,27,shared\nm5.large,27,shared\n", "line 3: duplicate row for m5.large"},
	} {
		_, err := ParseEBSAttachments(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseEBSAttachments(%q) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}
