package catalog

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	typesHead = "instance_type,family,category,generation,size,vcpu,memory_mib,gpu,arch,max_pods_eni,od_price_us_east_1\n"
	m5Row     = "m5.large,m5,m,5,large,2,8192,0,amd64,29,0.096\n"
	odHead    = "region,instance_type,od_price\n"
	spotHead  = "region,instance_type,savings_pct,interruption_band,band_label\n"
)

func TestParseInstanceTypesGood(t *testing.T) {
	// Unsorted input comes back sorted.
	got, err := ParseInstanceTypes(strings.NewReader(typesHead + m5Row +
		"c5.large,c5,c,5,large,2,4096,0,amd64,29,0.085\n" +
		"u-3tb1.56xlarge,u-3tb1,u,3,56xlarge,224,3145728,0,amd64,234,27.3\n"))
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.Equal(t, "c5.large", got[0].Name)
	require.Equal(t, "m5.large", got[1].Name)
	require.Equal(t, "u-3tb1.56xlarge", got[2].Name)

	// Header only: no rows, no error.
	got, err = ParseInstanceTypes(strings.NewReader(typesHead))
	require.NoError(t, err)
	require.Empty(t, got)
}

func TestParseInstanceTypesBad(t *testing.T) {
	for name, in := range map[string]string{
		"empty":             "",
		"wrong header":      strings.Replace(typesHead, "vcpu", "vcpus", 1) + m5Row,
		"missing column":    typesHead + "m5.large,m5,m,5,large,2,8192,0,amd64,29\n",
		"extra column":      typesHead + "m5.large,m5,m,5,large,2,8192,0,amd64,29,0.096,x\n",
		"bad quote":         typesHead + "\"m5.large,m5,m,5,large,2,8192,0,amd64,29,0.096\n",
		"vcpu not int":      typesHead + "m5.large,m5,m,5,large,two,8192,0,amd64,29,0.096\n",
		"vcpu zero":         typesHead + "m5.large,m5,m,5,large,0,8192,0,amd64,29,0.096\n",
		"memory negative":   typesHead + "m5.large,m5,m,5,large,2,-8192,0,amd64,29,0.096\n",
		"memory float":      typesHead + "m5.large,m5,m,5,large,2,8192.5,0,amd64,29,0.096\n",
		"gpu negative":      typesHead + "m5.large,m5,m,5,large,2,8192,-1,amd64,29,0.096\n",
		"bad arch":          typesHead + "m5.large,m5,m,5,large,2,8192,0,x86_64,29,0.096\n",
		"pods zero":         typesHead + "m5.large,m5,m,5,large,2,8192,0,amd64,0,0.096\n",
		"price empty":       typesHead + "m5.large,m5,m,5,large,2,8192,0,amd64,29,\n",
		"price NaN":         typesHead + "m5.large,m5,m,5,large,2,8192,0,amd64,29,NaN\n",
		"price Inf":         typesHead + "m5.large,m5,m,5,large,2,8192,0,amd64,29,+Inf\n",
		"price zero":        typesHead + "m5.large,m5,m,5,large,2,8192,0,amd64,29,0\n",
		"name without size": typesHead + "m5,m5,m,5,,2,8192,0,amd64,29,0.096\n",
		"empty name":        typesHead + ",m5,m,5,large,2,8192,0,amd64,29,0.096\n",
		"name with space":   typesHead + " m5.large,m5,m,5,large,2,8192,0,amd64,29,0.096\n",
		"family mismatch":   typesHead + "m5.large,m5a,m,5,large,2,8192,0,amd64,29,0.096\n",
		"category mismatch": typesHead + "m5.large,m5,c,5,large,2,8192,0,amd64,29,0.096\n",
		"generation wrong":  typesHead + "m5.large,m5,m,6,large,2,8192,0,amd64,29,0.096\n",
		"size mismatch":     typesHead + "m5.large,m5,m,5,xlarge,2,8192,0,amd64,29,0.096\n",
		"shifted columns":   typesHead + "m5.large,m5,5,large,2,8192,0,amd64,29,0.096,x\n",
		"duplicate":         typesHead + m5Row + m5Row,
	} {
		t.Run(name, func(t *testing.T) {
			var got []*InstanceType
			var err error
			require.NotPanics(t, func() { got, err = ParseInstanceTypes(strings.NewReader(in)) })
			require.Error(t, err)
			require.Nil(t, got)
			t.Log(err)
		})
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	_, err := ParseInstanceTypes(strings.NewReader(typesHead + m5Row +
		"c5.large,c5,c,5,large,2,4096,0,sparc,29,0.085\n"))
	require.ErrorContains(t, err, "line 3")
	require.ErrorContains(t, err, "sparc")

	_, err = ParseSpotAdvisor(strings.NewReader(spotHead + "us-east-1,m5.large,66,3,15-20%\nus-east-1,c5.large,59,9,?\n"))
	require.ErrorContains(t, err, "line 3")
}

type failingReader struct{ after string }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.after == "" {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, f.after)
	f.after = f.after[n:]
	return n, nil
}

func TestParseReaderErrors(t *testing.T) {
	_, err := ParseInstanceTypes(&failingReader{after: typesHead + m5Row})
	require.ErrorContains(t, err, "disk on fire")
	_, err = ParseOnDemandPrices(&failingReader{})
	require.ErrorContains(t, err, "disk on fire")
	_, err = ParseSpotAdvisor(nil)
	require.Error(t, err)
	_, err = ParseInstanceTypes(nil)
	require.Error(t, err)
	var r io.Reader
	_, err = ParseOnDemandPrices(r)
	require.Error(t, err)
}

func TestParseOnDemandPrices(t *testing.T) {
	got, err := ParseOnDemandPrices(strings.NewReader(odHead + "us-east-1,m5.large,0.096\nus-west-2,m5.large,0.1\n"))
	require.NoError(t, err)
	require.Equal(t, map[string]map[string]float64{
		"us-east-1": {"m5.large": 0.096},
		"us-west-2": {"m5.large": 0.1},
	}, got)

	requireParseErrors(t, map[string]string{
		"empty":          "",
		"wrong header":   "region,type,price\n",
		"short row":      odHead + "us-east-1,m5.large\n",
		"price text":     odHead + "us-east-1,m5.large,cheap\n",
		"price negative": odHead + "us-east-1,m5.large,-1\n",
		"empty region":   odHead + ",m5.large,0.096\n",
		"empty type":     odHead + "us-east-1,,0.096\n",
		"duplicate":      odHead + "us-east-1,m5.large,0.096\nus-east-1,m5.large,0.096\n",
	}, ParseOnDemandPrices)
}

// requireParseErrors parses every bad input (by name): each is an error,
// never a panic.
func requireParseErrors[T any](t *testing.T, bad map[string]string, parse func(io.Reader) (T, error)) {
	t.Helper()
	for name, in := range bad {
		t.Run(name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { _, err = parse(strings.NewReader(in)) })
			require.Error(t, err)
		})
	}
}

func TestParseSpotAdvisor(t *testing.T) {
	got, err := ParseSpotAdvisor(strings.NewReader(spotHead + "us-east-1,m5.large,66,3,15-20%\neu-west-1,m5.large,57,1,5-10%\n"))
	require.NoError(t, err)
	require.Equal(t, map[string]map[string]SpotAdvice{
		"us-east-1": {"m5.large": {SavingsPct: 66, Band: 3, BandLabel: "15-20%"}},
		"eu-west-1": {"m5.large": {SavingsPct: 57, Band: 1, BandLabel: "5-10%"}},
	}, got)

	// A negative saving (the 2025 advisor has ca-central-1 p5.48xlarge at
	// -62) reads as 0: EC2 never charges more than on-demand for spot.
	got, err = ParseSpotAdvisor(strings.NewReader(spotHead + "ca-central-1,p5.48xlarge,-62,0,<5%\n"))
	require.NoError(t, err)
	require.Equal(t, SpotAdvice{SavingsPct: 0, Band: 0, BandLabel: "<5%"}, got["ca-central-1"]["p5.48xlarge"])

	requireParseErrors(t, map[string]string{
		"empty":              "",
		"wrong header":       "region,instance_type,savings,band,label\n",
		"short row":          spotHead + "us-east-1,m5.large,66,3\n",
		"savings over 100":   spotHead + "us-east-1,m5.large,101,3,15-20%\n",
		"savings below -100": spotHead + "us-east-1,m5.large,-101,3,15-20%\n",
		"savings float":      spotHead + "us-east-1,m5.large,66.5,3,15-20%\n",
		"band 5":             spotHead + "us-east-1,m5.large,66,5,?\n",
		"band negative":      spotHead + "us-east-1,m5.large,66,-1,?\n",
		"empty label":        spotHead + "us-east-1,m5.large,66,3,\n",
		"inconsistent label": spotHead + "us-east-1,m5.large,66,3,15-20%\nus-east-1,c5.large,59,3,>20%\n",
		"duplicate":          spotHead + "us-east-1,m5.large,66,3,15-20%\nus-east-1,m5.large,60,3,15-20%\n",
	}, ParseSpotAdvisor)
}

func TestLoad(t *testing.T) {
	c, err := Load(
		strings.NewReader(typesHead+m5Row),
		strings.NewReader(odHead),
		strings.NewReader(spotHead+"us-east-1,m5.large,66,3,15-20%\n"),
	)
	require.NoError(t, err)
	require.Len(t, c.Types(), 1)
	// Missing from the on-demand table: the type's own us-east-1 price is used.
	p, exact, ok := c.OnDemandPrice("us-east-1", "m5.large")
	require.True(t, ok && exact)
	require.Equal(t, 0.096, p)

	// The two price sources disagree.
	_, err = Load(
		strings.NewReader(typesHead+m5Row),
		strings.NewReader(odHead+"us-east-1,m5.large,0.1\n"),
		strings.NewReader(spotHead),
	)
	require.ErrorContains(t, err, "m5.large")

	// Each input's errors propagate.
	for i := range 3 {
		in := []string{typesHead + m5Row, odHead, spotHead}
		in[i] = "garbage\n"
		_, err = Load(strings.NewReader(in[0]), strings.NewReader(in[1]), strings.NewReader(in[2]))
		require.Error(t, err, i)
	}
}
