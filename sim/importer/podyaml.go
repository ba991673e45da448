package importer

import (
	"bytes"
	"strconv"
)

// fromYAML reads a pod's podLite fields from its YAML as kubectl writes it
// (block style, two-space indentation, ownerReferences as a block list),
// by lines, without parsing the rest. It reports false for anything it
// does not recognise, and the pod is then decoded in full.
func (p *podLite) fromYAML(text []byte) bool {
	section := "" // top-level key of the current block
	inOwners, inAnnotations := false, false
	var owner *ownerLite
	for len(text) > 0 {
		var line []byte
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			line, text = text, nil
		}
		if len(line) == 0 {
			continue
		}
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		body := line[indent:]
		if len(body) == 0 || body[0] == '#' {
			continue
		}
		switch {
		case indent == 0:
			key, _, ok := keyValue(body)
			if !ok {
				return false
			}
			section, inOwners, inAnnotations = key, false, false
			continue
		case section == "metadata" && indent == 2 && bytes.HasPrefix(body, []byte("- ")):
			// An item of a list under metadata (kubectl indents list
			// items as deep as their key): an owner reference, or
			// managedFields, which are skipped.
			if !inOwners {
				continue
			}
			p.Metadata.OwnerReferences = append(p.Metadata.OwnerReferences, ownerLite{})
			owner = &p.Metadata.OwnerReferences[len(p.Metadata.OwnerReferences)-1]
			if !owner.field(body[2:]) {
				return false
			}
		case section == "metadata" && indent == 2:
			key, val, ok := keyValue(body)
			if !ok {
				return false
			}
			inOwners, inAnnotations = false, false
			switch key {
			case "annotations":
				// A block mapping (kubectl's style); a flow one is decoded
				// in full.
				inAnnotations, ok = val == "", val == "" || val == "{}"
			case "name":
				p.Metadata.Name, ok = scalar(val)
			case "namespace":
				p.Metadata.Namespace, ok = scalar(val)
			case "deletionTimestamp":
				var ts string
				ts, ok = scalar(val)
				p.Metadata.DeletionTimestamp = &ts
			case "ownerReferences":
				inOwners, ok = val == "", val == ""
			}
			if !ok {
				return false
			}
		case section == "metadata" && inOwners && indent == 4:
			if owner == nil || !owner.field(body) {
				return false
			}
		case section == "metadata" && inAnnotations && indent == 4:
			// Only the annotations that change a pod's fate are read;
			// one that is not read cleanly sends the pod to a full decode.
			key, val, ok := keyValue(body)
			for _, k := range podAnnotations {
				if !ok && bytes.Contains(body, []byte(k)) {
					return false
				}
				if ok && key == k {
					v, good := scalar(val)
					if !good {
						return false
					}
					if p.Metadata.Annotations == nil {
						p.Metadata.Annotations = map[string]string{}
					}
					p.Metadata.Annotations[k] = v
				}
			}
		case section == "spec" && indent == 2 && !bytes.HasPrefix(body, []byte("- ")):
			key, val, ok := keyValue(body)
			switch {
			case !ok:
				return false
			case key == "nodeName":
				p.Spec.NodeName, ok = scalar(val)
			case key == "priorityClassName":
				p.Spec.PriorityClassName, ok = scalar(val)
			case key == "priority":
				n, err := strconv.ParseInt(val, 10, 32)
				v := int32(n)
				ok, p.Spec.Priority = err == nil, &v
			}
			if !ok {
				return false
			}
		case section == "status" && indent == 2:
			if key, val, ok := keyValue(body); ok && key == "phase" {
				if p.Status.Phase, ok = scalar(val); !ok {
					return false
				}
			} else if ok && key == "startTime" {
				st, good := scalar(val)
				if !good {
					return false
				}
				p.Status.StartTime = &st
			}
		}
	}
	return p.Metadata.Name != ""
}

// keyValue splits "key: value" (or "key:") of a block mapping line.
func keyValue(body []byte) (key, val string, ok bool) {
	i := bytes.IndexByte(body, ':')
	if i <= 0 || (i+1 < len(body) && body[i+1] != ' ') {
		return "", "", false
	}
	k := body[:i]
	if k[0] == '"' || k[0] == '\'' || k[0] == '?' {
		return "", "", false
	}
	return string(k), string(bytes.TrimSpace(body[i+1:])), true
}

// scalar reads a plain or quoted one-line scalar; anything else (flow
// collections, anchors, tags, block scalars, comments) is not recognised.
func scalar(v string) (string, bool) {
	if v == "" {
		return "", false
	}
	switch v[0] {
	case '"':
		s, err := strconv.Unquote(v)
		return s, err == nil
	case '\'':
		if len(v) < 2 || v[len(v)-1] != '\'' {
			return "", false
		}
		inner := v[1 : len(v)-1]
		out := make([]byte, 0, len(inner))
		for i := 0; i < len(inner); i++ {
			if inner[i] == '\'' {
				if i+1 >= len(inner) || inner[i+1] != '\'' {
					return "", false
				}
				i++
			}
			out = append(out, inner[i])
		}
		return string(out), true
	case '{', '[', '&', '*', '!', '|', '>', '#', '%', '@', '`':
		return "", false
	}
	for i := 0; i+1 < len(v); i++ {
		if v[i] == ' ' && v[i+1] == '#' {
			return "", false
		}
	}
	return v, true
}

// field reads one "key: value" line of an owner reference.
func (o *ownerLite) field(body []byte) bool {
	key, val, ok := keyValue(body)
	if !ok {
		return false
	}
	switch key {
	case "kind":
		o.Kind, ok = scalar(val)
	case "name":
		o.Name, ok = scalar(val)
	case "controller":
		b := val == "true"
		ok = b || val == "false"
		o.Controller = &b
	}
	return ok
}
