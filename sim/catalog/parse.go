package catalog

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// CSV headers the parsers require, exactly and in this order.
var (
	instanceTypesHeader = []string{"instance_type", "family", "category", "generation", "size", "vcpu", "memory_mib", "gpu", "arch", "max_pods_eni", "od_price_us_east_1"}
	onDemandHeader      = []string{"region", "instance_type", "od_price"}
	spotAdvisorHeader   = []string{"region", "instance_type", "savings_pct", "interruption_band", "band_label"}
)

// csvTable reads a CSV with a fixed header and reports errors with the file
// name and line number.
type csvTable struct {
	name string
	r    *csv.Reader
	line int // line of the current record
}

func newCSVTable(name string, r io.Reader, header []string) (*csvTable, error) {
	if r == nil {
		return nil, fmt.Errorf("%s: nil reader", name)
	}
	t := &csvTable{name: name}
	got, err := t.readHeader(r)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(got, header) {
		return nil, fmt.Errorf("%s: header is %q, want %q", name, strings.Join(got, ","), strings.Join(header, ","))
	}
	return t, nil
}

// readHeader starts reading r and returns its header; every later record
// must have as many fields.
func (t *csvTable) readHeader(r io.Reader) ([]string, error) {
	t.r = csv.NewReader(r)
	got, err := t.r.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty input, want a header", t.name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", t.name, err)
	}
	t.r.FieldsPerRecord = len(got)
	return got, nil
}

// each calls row for every record, stopping at the first error.
func (t *csvTable) each(row func(rec []string) error) error {
	for {
		rec, err := t.next()
		if err != nil || rec == nil {
			return err
		}
		if err := row(rec); err != nil {
			return err
		}
	}
}

// next returns the next record, or nil at end of input.
func (t *csvTable) next() ([]string, error) {
	rec, err := t.r.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		// *csv.ParseError already names the line and column.
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	t.line, _ = t.r.FieldPos(0)
	return rec, nil
}

func (t *csvTable) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: line %d: %s", t.name, t.line, fmt.Sprintf(format, args...))
}

func (t *csvTable) int(col, s string, lo, hi int64) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, t.errorf("%s: %q is not an integer", col, s)
	}
	if v < lo || v > hi {
		return 0, t.errorf("%s: %d out of range [%d, %d]", col, v, lo, hi)
	}
	return v, nil
}

// price parses a positive, finite USD-per-hour value.
func (t *csvTable) price(col, s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, t.errorf("%s: %q is not a decimal number", col, s)
	}
	if v <= 0 {
		return 0, t.errorf("%s: %s must be > 0", col, s)
	}
	return v, nil
}

func (t *csvTable) nonEmpty(col, s string) error {
	if s == "" || strings.TrimSpace(s) != s {
		return t.errorf("%s: %q is empty or has surrounding spaces", col, s)
	}
	return nil
}

// splitName derives family, category, generation and size from an instance
// type name with the rules of PROVENANCE.md: family is the text before the
// first ".", size the text after it, category the leading letters of the
// family and generation its first run of digits (-1 when it has none).
func splitName(name string) (family, category string, generation int, size string, ok bool) {
	family, size, ok = strings.Cut(name, ".")
	if !ok || family == "" || size == "" {
		return "", "", 0, "", false
	}
	i := 0
	for i < len(family) && family[i] >= 'a' && family[i] <= 'z' {
		i++
	}
	category = family[:i]
	generation = -1
	if j := strings.IndexAny(family, "0123456789"); j >= 0 {
		k := j
		for k < len(family) && family[k] >= '0' && family[k] <= '9' {
			k++
		}
		g, err := strconv.Atoi(family[j:k])
		if err != nil {
			return "", "", 0, "", false
		}
		generation = g
	}
	return family, category, generation, size, category != ""
}

// ParseInstanceTypes reads an ec2-instance-types.csv table (see
// data/PROVENANCE.md for the columns). It checks the header, every field and
// that family/category/generation/size agree with the name (so a family
// without digits is rejected), and rejects duplicate names. The result is
// sorted by name.
func ParseInstanceTypes(r io.Reader) ([]*InstanceType, error) {
	t, err := newCSVTable("instance types", r, instanceTypesHeader)
	if err != nil {
		return nil, err
	}
	var out []*InstanceType
	seen := map[string]bool{}
	err = t.each(func(rec []string) error {
		it, err := t.instanceType(rec)
		if err != nil {
			return err
		}
		if seen[it.Name] {
			return t.errorf("duplicate instance type %q", it.Name)
		}
		seen[it.Name] = true
		out = append(out, it)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b *InstanceType) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (t *csvTable) instanceType(rec []string) (*InstanceType, error) {
	name := rec[0]
	if err := t.nonEmpty("instance_type", name); err != nil {
		return nil, err
	}
	family, category, generation, size, ok := splitName(name)
	if !ok {
		return nil, t.errorf("instance_type: %q is not <family>.<size>", name)
	}
	gen, err := t.int("generation", rec[3], 0, 1000)
	if err != nil {
		return nil, err
	}
	if rec[1] != family || rec[2] != category || int(gen) != generation || rec[4] != size {
		return nil, t.errorf("%s: family/category/generation/size %s/%s/%s/%s do not match the name (want %s/%s/%d/%s)",
			name, rec[1], rec[2], rec[3], rec[4], family, category, generation, size)
	}
	vcpu, err := t.int("vcpu", rec[5], 1, 1<<20)
	if err != nil {
		return nil, err
	}
	mem, err := t.int("memory_mib", rec[6], 1, 1<<40)
	if err != nil {
		return nil, err
	}
	gpu, err := t.int("gpu", rec[7], 0, 1<<20)
	if err != nil {
		return nil, err
	}
	arch := rec[8]
	if arch != ArchAMD64 && arch != ArchARM64 {
		return nil, t.errorf("arch: %q is not %q or %q", arch, ArchAMD64, ArchARM64)
	}
	pods, err := t.int("max_pods_eni", rec[9], 1, 1<<20)
	if err != nil {
		return nil, err
	}
	price, err := t.price("od_price_us_east_1", rec[10])
	if err != nil {
		return nil, err
	}
	return &InstanceType{
		Name:               name,
		Family:             family,
		Category:           category,
		Generation:         generation,
		Size:               size,
		VCPU:               int(vcpu),
		MemoryMiB:          mem,
		GPU:                int(gpu),
		Arch:               arch,
		MaxPodsENI:         int(pods),
		OnDemandUSDPerHour: price,
	}, nil
}

// ParseOnDemandPrices reads an ec2-od-prices.csv table into
// region -> instance type -> USD per hour. Duplicate (region, type) rows are
// errors.
func ParseOnDemandPrices(r io.Reader) (map[string]map[string]float64, error) {
	t, err := newCSVTable("on-demand prices", r, onDemandHeader)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]float64{}
	err = t.each(func(rec []string) error {
		region, typ := rec[0], rec[1]
		if err := t.nonEmpty("region", region); err != nil {
			return err
		}
		if err := t.nonEmpty("instance_type", typ); err != nil {
			return err
		}
		p, err := t.price("od_price", rec[2])
		if err != nil {
			return err
		}
		if !putNew(out, region, typ, p) {
			return t.errorf("duplicate price for %s in %s", typ, region)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// putNew sets out[region][typ] to v unless it is set already (then ok is
// false).
func putNew[V any](out map[string]map[string]V, region, typ string, v V) (ok bool) {
	m := out[region]
	if m == nil {
		m = map[string]V{}
		out[region] = m
	}
	if _, dup := m[typ]; dup {
		return false
	}
	m[typ] = v
	return true
}

// ParseSpotAdvisor reads an ec2-spot-advisor.csv table into
// region -> instance type -> advice. It checks savings in [-100,100] (and
// reads a negative one as 0, see the package doc), band in
// [0,4], that each band always carries the same label, and rejects duplicate
// (region, type) rows.
func ParseSpotAdvisor(r io.Reader) (map[string]map[string]SpotAdvice, error) {
	t, err := newCSVTable("spot advisor", r, spotAdvisorHeader)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]SpotAdvice{}
	labels := map[int]string{}
	err = t.each(func(rec []string) error {
		region, typ, label := rec[0], rec[1], rec[4]
		for i, col := range []string{"region", "instance_type", "band_label"} {
			if err := t.nonEmpty(col, []string{region, typ, label}[i]); err != nil {
				return err
			}
		}
		savings, err := t.int("savings_pct", rec[2], -100, 100)
		if err != nil {
			return err
		}
		// A negative saving (ca-central-1 p5.48xlarge: -62) would price spot
		// above on-demand, which EC2 never charges: read it as 0.
		savings = max(savings, 0)
		band, err := t.int("interruption_band", rec[3], 0, MaxSpotBand)
		if err != nil {
			return err
		}
		if prev, ok := labels[int(band)]; ok && prev != label {
			return t.errorf("band %d has label %q here but %q earlier", band, label, prev)
		}
		labels[int(band)] = label
		if !putNew(out, region, typ, SpotAdvice{SavingsPct: int(savings), Band: int(band), BandLabel: label}) {
			return t.errorf("duplicate advice for %s in %s", typ, region)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
