package scenario

import (
	"reflect"
	"strconv"

	"github.com/clustersim/clustersim/sim/component"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The Scenario document's spec holds the common fields (spec) and one
// settings field per registered component (spec.karpenter, ...), each
// decoded into the type its component gives. decodeScenario builds that
// document's type once per load from the registry, so strict decoding
// (unknown fields, "did you mean") covers the components' fields as it
// does the common ones.

// settingsField is one component's field of the spec.
type settingsField struct {
	comp component.Component
	name string // the JSON name, e.g. karpenter
	typ  reflect.Type
}

// componentSettings lists the registered components' settings fields.
func componentSettings() []settingsField {
	var out []settingsField
	for _, c := range component.Registered() {
		name, v := c.Settings()
		if name == "" || v == nil {
			continue
		}
		out = append(out, settingsField{comp: c, name: name, typ: reflect.TypeOf(v)})
	}
	return out
}

// documentType is the Scenario document's type with the components'
// fields added to spec.
func documentType(fields []settingsField) reflect.Type {
	common := reflect.TypeOf(spec{})
	var sf []reflect.StructField
	for i := range common.NumField() {
		f := common.Field(i)
		sf = append(sf, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag})
	}
	for i, f := range fields {
		sf = append(sf, reflect.StructField{Name: goName(i), Type: f.typ, Tag: reflect.StructTag(`json:"` + f.name + `,omitempty"`)})
	}
	specType := reflect.StructOf(sf)
	return reflect.StructOf([]reflect.StructField{
		{Name: "APIVersion", Type: reflect.TypeOf(""), Tag: `json:"apiVersion"`},
		{Name: "Kind", Type: reflect.TypeOf(""), Tag: `json:"kind"`},
		{Name: "Metadata", Type: reflect.TypeOf(metav1.ObjectMeta{}), Tag: `json:"metadata"`},
		{Name: "Spec", Type: specType, Tag: `json:"spec"`},
	})
}

// goName is the Go name of the i-th component's field in the document
// type (exported, as reflect.StructOf requires; only JSON names are seen).
func goName(i int) string { return "Component" + strconv.Itoa(i) }

// decodeInto decodes the Scenario document into l.doc and the components'
// settings into l.settings (by component name; nil when not set).
func (l *loader) decodeInto() error {
	fields := componentSettings()
	v := reflect.New(documentType(fields))
	if err := l.scenarioDoc.Decode(v.Interface()); err != nil {
		return err
	}
	doc := v.Elem()
	l.doc.APIVersion = doc.Field(0).String()
	l.doc.Kind = doc.Field(1).String()
	l.doc.Metadata = doc.Field(2).Interface().(metav1.ObjectMeta)
	specV, common := doc.Field(3), reflect.ValueOf(&l.doc.Spec).Elem()
	for i := range common.NumField() {
		common.Field(i).Set(specV.Field(i))
	}
	l.settings = map[string]any{}
	for i, f := range fields {
		if fv := specV.Field(common.NumField() + i); !fv.IsNil() {
			l.settings[f.comp.Name()] = fv.Interface()
		}
	}
	l.settingsPath = map[string]string{}
	for _, f := range fields {
		l.settingsPath[f.comp.Name()] = "spec." + f.name
	}
	return nil
}
