package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// serviceMonitor is the part of monitoring.coreos.com/v1 ServiceMonitor the
// chart uses (the Prometheus Operator's Go module is too heavy to import);
// decoding is strict, so any other field fails the test.
type serviceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector  metav1.LabelSelector `json:"selector"`
		Endpoints []struct {
			Port     string `json:"port"`
			Path     string `json:"path"`
			Interval string `json:"interval"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// kinds maps each kind the chart may render to its API version and Go type.
var kinds = map[string]struct {
	apiVersion string
	new        func() any
}{
	"Deployment":              {"apps/v1", func() any { return &appsv1.Deployment{} }},
	"Service":                 {"v1", func() any { return &corev1.Service{} }},
	"ServiceAccount":          {"v1", func() any { return &corev1.ServiceAccount{} }},
	"ConfigMap":               {"v1", func() any { return &corev1.ConfigMap{} }},
	"HorizontalPodAutoscaler": {"autoscaling/v2", func() any { return &autoscalingv2.HorizontalPodAutoscaler{} }},
	"PodDisruptionBudget":     {"policy/v1", func() any { return &policyv1.PodDisruptionBudget{} }},
	"NetworkPolicy":           {"networking.k8s.io/v1", func() any { return &networkingv1.NetworkPolicy{} }},
	"Ingress":                 {"networking.k8s.io/v1", func() any { return &networkingv1.Ingress{} }},
	"ServiceMonitor":          {"monitoring.coreos.com/v1", func() any { return &serviceMonitor{} }},
}

// decodeStrict converts YAML to JSON (duplicate keys are errors) and decodes
// it with unknown fields rejected.
func decodeStrict(data []byte, into any) error {
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data")
	}
	return nil
}

// typed holds one profile's objects decoded into their API types.
type typed struct {
	deployments     []*appsv1.Deployment
	services        []*corev1.Service
	serviceAccounts []*corev1.ServiceAccount
	configMaps      []*corev1.ConfigMap
	hpas            []*autoscalingv2.HorizontalPodAutoscaler
	pdbs            []*policyv1.PodDisruptionBudget
	netpols         []*networkingv1.NetworkPolicy
	ingresses       []*networkingv1.Ingress
	monitors        []*serviceMonitor
}

func decodeAll(t *testing.T, p profile) *typed {
	t.Helper()
	out := &typed{}
	seen := map[string]bool{}
	for _, o := range render(t, p) {
		k, ok := kinds[o.Kind]
		if !ok {
			t.Errorf("%s: %s: kind not covered by the tests", p.name, o)
			continue
		}
		if o.APIVersion != k.apiVersion {
			t.Errorf("%s: %s: apiVersion %q, want %q", p.name, o, o.APIVersion, k.apiVersion)
		}
		key := o.Kind + "/" + o.Name
		if seen[key] {
			t.Errorf("%s: %s rendered twice", p.name, key)
		}
		seen[key] = true
		v := k.new()
		if err := decodeStrict(o.YAML, v); err != nil {
			t.Errorf("%s: %s: strict decode: %v", p.name, o, err)
			continue
		}
		switch v := v.(type) {
		case *appsv1.Deployment:
			out.deployments = append(out.deployments, v)
		case *corev1.Service:
			out.services = append(out.services, v)
		case *corev1.ServiceAccount:
			out.serviceAccounts = append(out.serviceAccounts, v)
		case *corev1.ConfigMap:
			out.configMaps = append(out.configMaps, v)
		case *autoscalingv2.HorizontalPodAutoscaler:
			out.hpas = append(out.hpas, v)
		case *policyv1.PodDisruptionBudget:
			out.pdbs = append(out.pdbs, v)
		case *networkingv1.NetworkPolicy:
			out.netpols = append(out.netpols, v)
		case *networkingv1.Ingress:
			out.ingresses = append(out.ingresses, v)
		case *serviceMonitor:
			out.monitors = append(out.monitors, v)
		}
	}
	return out
}

func (ty *typed) deployment(name string) *appsv1.Deployment {
	for _, d := range ty.deployments {
		if d.Name == name {
			return d
		}
	}
	return nil
}

func (ty *typed) service(name string) *corev1.Service {
	for _, s := range ty.services {
		if s.Name == name {
			return s
		}
	}
	return nil
}

func (ty *typed) configMap(name string) *corev1.ConfigMap {
	for _, c := range ty.configMaps {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func (ty *typed) netpol(name string) *networkingv1.NetworkPolicy {
	for _, n := range ty.netpols {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// deploymentsSelecting returns the Deployments whose pod template labels
// match the selector.
func (ty *typed) deploymentsSelecting(sel labels.Selector) []string {
	var names []string
	for _, d := range ty.deployments {
		if sel.Matches(labels.Set(d.Spec.Template.Labels)) {
			names = append(names, d.Name)
		}
	}
	return names
}

func TestManifestsDecodeStrictlyAndFollowPolicy(t *testing.T) {
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			ty := decodeAll(t, p)
			if len(ty.deployments) == 0 {
				t.Fatal("no Deployments rendered")
			}
			checkDeployments(t, ty)
			checkServices(t, ty)
			checkAutoscalersAndBudgets(t, ty)
			checkNetworkPolicies(t, ty)
		})
	}
}

func checkDeployments(t *testing.T, ty *typed) {
	configMaps := map[string]*corev1.ConfigMap{}
	for _, c := range ty.configMaps {
		configMaps[c.Name] = c
	}
	serviceAccounts := map[string]bool{}
	for _, sa := range ty.serviceAccounts {
		serviceAccounts[sa.Name] = true
		if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
			t.Errorf("ServiceAccount %s mounts an API token", sa.Name)
		}
	}
	for _, d := range ty.deployments {
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || sel.Empty() {
			t.Errorf("Deployment %s: bad selector: %v", d.Name, err)
		} else if !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
			t.Errorf("Deployment %s: selector does not match its pod labels", d.Name)
		}
		pod := d.Spec.Template.Spec
		if !serviceAccounts[pod.ServiceAccountName] {
			t.Errorf("Deployment %s: ServiceAccount %q is not rendered", d.Name, pod.ServiceAccountName)
		}
		psc := pod.SecurityContext
		if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
			t.Errorf("Deployment %s: pod securityContext.runAsNonRoot must be true", d.Name)
		}
		if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("Deployment %s: pod seccompProfile must be RuntimeDefault", d.Name)
		}
		if len(pod.InitContainers) > 0 {
			t.Errorf("Deployment %s: init containers are not expected", d.Name)
		}
		for _, c := range pod.Containers {
			where := fmt.Sprintf("Deployment %s container %s", d.Name, c.Name)
			if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil {
				t.Errorf("%s: needs an HTTP livenessProbe", where)
			}
			if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil {
				t.Errorf("%s: needs an HTTP readinessProbe", where)
			}
			for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				if _, ok := c.Resources.Requests[res]; !ok {
					t.Errorf("%s: resources.requests.%s missing", where, res)
				}
				if _, ok := c.Resources.Limits[res]; !ok {
					t.Errorf("%s: resources.limits.%s missing", where, res)
				}
			}
			sc := c.SecurityContext
			switch {
			case sc == nil:
				t.Errorf("%s: no securityContext", where)
			default:
				if sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
					t.Errorf("%s: runAsNonRoot must be true", where)
				}
				if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
					t.Errorf("%s: readOnlyRootFilesystem must be true", where)
				}
				if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
					t.Errorf("%s: allowPrivilegeEscalation must be false", where)
				}
				if sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) > 0 {
					t.Errorf("%s: capabilities must drop ALL and add none", where)
				}
			}
			ports := map[string]bool{}
			for _, cp := range c.Ports {
				ports[cp.Name] = true
			}
			for _, pr := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
				if pr != nil && pr.HTTPGet != nil && pr.HTTPGet.Port.StrVal != "" && !ports[pr.HTTPGet.Port.StrVal] {
					t.Errorf("%s: probe port %q is not a container port", where, pr.HTTPGet.Port.StrVal)
				}
			}
			for _, ef := range c.EnvFrom {
				if ef.ConfigMapRef != nil && configMaps[ef.ConfigMapRef.Name] == nil {
					t.Errorf("%s: envFrom ConfigMap %q is not rendered", where, ef.ConfigMapRef.Name)
				}
			}
			// Secrets are referenced, never inlined.
			for _, e := range c.Env {
				if looksSecret(e.Name) && e.Value != "" {
					t.Errorf("%s: %s has a literal value; reference a Secret", where, e.Name)
				}
			}
		}
		for _, v := range pod.Volumes {
			if v.ConfigMap != nil && configMaps[v.ConfigMap.Name] == nil {
				t.Errorf("Deployment %s: volume ConfigMap %q is not rendered", d.Name, v.ConfigMap.Name)
			}
		}
	}
	for _, c := range ty.configMaps {
		for k := range c.Data {
			if looksSecret(k) {
				t.Errorf("ConfigMap %s: %s belongs in a Secret", c.Name, k)
			}
		}
	}
}

func looksSecret(name string) bool {
	for _, s := range []string{"DATABASE_URL", "SECRET", "PASSWORD", "TOKEN", "STRIPE_SECRET_KEY"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

func checkServices(t *testing.T, ty *typed) {
	for _, s := range ty.services {
		if len(s.Spec.Selector) == 0 {
			t.Errorf("Service %s has no selector", s.Name)
			continue
		}
		matched := ty.deploymentsSelecting(labels.SelectorFromSet(s.Spec.Selector))
		if len(matched) != 1 {
			t.Errorf("Service %s selects the pods of %d Deployments %v, want exactly one", s.Name, len(matched), matched)
			continue
		}
		d := ty.deployment(matched[0])
		ports := map[string]bool{}
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, p := range c.Ports {
				ports[p.Name] = true
			}
		}
		for _, p := range s.Spec.Ports {
			if p.TargetPort.StrVal == "" || !ports[p.TargetPort.StrVal] {
				t.Errorf("Service %s port %s: targetPort %q is not a named port of Deployment %s", s.Name, p.Name, p.TargetPort.String(), d.Name)
			}
		}
	}
	for _, m := range ty.monitors {
		sel, err := metav1.LabelSelectorAsSelector(&m.Spec.Selector)
		if err != nil {
			t.Errorf("ServiceMonitor %s: %v", m.Name, err)
			continue
		}
		found := false
		for _, s := range ty.services {
			if sel.Matches(labels.Set(s.Labels)) {
				found = true
			}
		}
		if !found {
			t.Errorf("ServiceMonitor %s selects no Service", m.Name)
		}
	}
	for _, in := range ty.ingresses {
		for _, r := range in.Spec.Rules {
			for _, p := range r.HTTP.Paths {
				if ty.service(p.Backend.Service.Name) == nil {
					t.Errorf("Ingress %s: backend Service %q is not rendered", in.Name, p.Backend.Service.Name)
				}
			}
		}
	}
}

func checkAutoscalersAndBudgets(t *testing.T, ty *typed) {
	for _, h := range ty.hpas {
		ref := h.Spec.ScaleTargetRef
		d := ty.deployment(ref.Name)
		if ref.Kind != "Deployment" || ref.APIVersion != "apps/v1" || d == nil {
			t.Errorf("HPA %s targets %s %s/%s, which is not a rendered Deployment", h.Name, ref.APIVersion, ref.Kind, ref.Name)
			continue
		}
		if d.Spec.Replicas != nil {
			t.Errorf("Deployment %s sets replicas although HPA %s scales it", d.Name, h.Name)
		}
		if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 1 || h.Spec.MaxReplicas < *h.Spec.MinReplicas {
			t.Errorf("HPA %s: bad replica bounds", h.Name)
		}
	}
	for _, b := range ty.pdbs {
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil || sel.Empty() {
			t.Errorf("PDB %s: bad selector: %v", b.Name, err)
			continue
		}
		if matched := ty.deploymentsSelecting(sel); len(matched) == 0 {
			t.Errorf("PDB %s selects no pods", b.Name)
		}
	}
}

func checkNetworkPolicies(t *testing.T, ty *typed) {
	for _, n := range ty.netpols {
		sel, err := metav1.LabelSelectorAsSelector(&n.Spec.PodSelector)
		if err != nil || sel.Empty() {
			t.Errorf("NetworkPolicy %s must select specific pods: %v", n.Name, err)
			continue
		}
		if len(ty.deploymentsSelecting(sel)) == 0 {
			t.Errorf("NetworkPolicy %s selects no pods", n.Name)
		}
	}
}

// The services' ports are reachable only as declared: HTTP from the gateway
// (and the metrics scrapers), gRPC from the grpcCallers.
func TestNetworkPoliciesAllowOnlyDeclaredCallers(t *testing.T) {
	ty := decodeAll(t, allServices)
	wantGRPC := map[string][]string{
		"identity":      {"catalog", "documents", "mail"},
		"catalog":       {"conversations", "documents", "mail"},
		"documents":     {"catalog", "conversations"},
		"wallet":        {"conversations", "identity"},
		"analytics":     nil,
		"conversations": {"documents", "mail"},
		"mail":          nil,
	}
	for svc, callers := range wantGRPC {
		n := ty.netpol(release + "-" + svc)
		if n == nil {
			t.Errorf("no NetworkPolicy for %s", svc)
			continue
		}
		got := map[string][]string{} // port name -> allowed app names ("*" for non-pod peers)
		for _, rule := range n.Spec.Ingress {
			if len(rule.From) == 0 {
				t.Errorf("%s: an ingress rule without from allows everyone", svc)
			}
			for _, port := range rule.Ports {
				for _, peer := range rule.From {
					name := "*"
					if peer.PodSelector != nil && peer.NamespaceSelector == nil {
						name = peer.PodSelector.MatchLabels["app.kubernetes.io/name"]
					}
					got[port.Port.StrVal] = append(got[port.Port.StrVal], name)
				}
			}
		}
		for port := range got {
			// Only the mail service takes SMTP (from anywhere: it is the agents' MX).
			if port != "http" && port != "grpc" && !(svc == "mail" && port == "smtp") {
				t.Errorf("%s: unexpected port %q in NetworkPolicy", svc, port)
			}
		}
		if svc == "mail" && len(got["smtp"]) == 0 {
			t.Errorf("mail: SMTP is not reachable")
		}
		sort.Strings(got["grpc"])
		if fmt.Sprint(got["grpc"]) != fmt.Sprint(callers) && !(len(got["grpc"]) == 0 && len(callers) == 0) {
			t.Errorf("%s: gRPC allowed from %v, want %v", svc, got["grpc"], callers)
		}
		for _, name := range got["http"] {
			if name != "envoy" && name != "*" {
				t.Errorf("%s: HTTP allowed from %q; only the gateway (and metrics namespaces) may", svc, name)
			}
		}
		if !contains(got["http"], "envoy") {
			t.Errorf("%s: the gateway cannot reach the HTTP port", svc)
		}
	}
	// web only from the gateway, and from the catalog, which reads the SPA's
	// shell for its agent pages (webShell).
	if got := webPeers(t, ty); got != "[envoy catalog]" {
		t.Errorf("web NetworkPolicy admits %s; want only the gateway and the catalog", got)
	}
	if got := webPeers(t, decodeAll(t, identityOnly)); got != "[envoy]" {
		t.Errorf("identity only: web NetworkPolicy admits %s; want only the gateway", got)
	}
}

// webPeers lists the app names the web NetworkPolicy admits (one rule, HTTP).
func webPeers(t *testing.T, ty *typed) string {
	t.Helper()
	n := ty.netpol(release + "-web")
	if n == nil || len(n.Spec.Ingress) != 1 || len(n.Spec.Ingress[0].Ports) != 1 || n.Spec.Ingress[0].Ports[0].Port.StrVal != "http" {
		t.Fatalf("web NetworkPolicy: %+v", n)
	}
	var names []string
	for _, peer := range n.Spec.Ingress[0].From {
		if peer.PodSelector == nil || peer.NamespaceSelector != nil || peer.IPBlock != nil {
			t.Fatalf("web NetworkPolicy peer %+v is not a pod of the release", peer)
		}
		names = append(names, peer.PodSelector.MatchLabels["app.kubernetes.io/name"])
	}
	return fmt.Sprint(names)
}

// The catalog renders the agent pages (link previews) from the SPA's shell,
// which it reads from the web Service (WEB_INDEX_URL), with canonical links
// on the public origin (APP_BASE_URL); no other service reads the shell.
func TestCatalogReadsTheWebShell(t *testing.T) {
	for _, c := range []struct {
		p    profile
		base string
	}{{defaults, "https://agentic.app"}, {production, "https://agentic.app"}, {local, "http://localhost:8080"}} {
		ty := decodeAll(t, c.p)
		cm := ty.configMap(release + "-catalog")
		if cm == nil {
			t.Fatalf("%s: no catalog ConfigMap", c.p.name)
		}
		if got, want := cm.Data["WEB_INDEX_URL"], "http://"+release+"-web.agentic.svc.cluster.local:8080/index.html"; got != want {
			t.Errorf("%s: WEB_INDEX_URL = %q, want %q", c.p.name, got, want)
		}
		if cm.Data["APP_BASE_URL"] != c.base {
			t.Errorf("%s: catalog APP_BASE_URL = %q, want %q", c.p.name, cm.Data["APP_BASE_URL"], c.base)
		}
		if s := ty.service(release + "-web"); s == nil || s.Spec.Ports[0].Port != 8080 {
			t.Errorf("%s: the web Service does not serve port 8080", c.p.name)
		}
		for _, svc := range []string{"identity", "documents", "wallet", "analytics", "conversations", "mail"} {
			if cm := ty.configMap(release + "-" + svc); cm != nil && cm.Data["WEB_INDEX_URL"] != "" {
				t.Errorf("%s: %s reads the web shell", c.p.name, svc)
			}
		}
	}
}

// The Envoy Service exposes only the HTTP listener: no admin, no health port.
func TestEnvoyServiceHidesAdminAndHealth(t *testing.T) {
	for _, p := range profiles {
		ty := decodeAll(t, p)
		s := ty.service(release + "-envoy")
		if s == nil {
			t.Fatalf("%s: no envoy Service", p.name)
		}
		if len(s.Spec.Ports) != 1 || s.Spec.Ports[0].TargetPort.StrVal != "http" {
			t.Errorf("%s: envoy Service ports %+v, want only http", p.name, s.Spec.Ports)
		}
		d := ty.deployment(release + "-envoy")
		for _, c := range d.Spec.Template.Spec.Containers {
			if !strings.HasPrefix(c.Image, "envoyproxy/envoy:v1.3") {
				t.Errorf("%s: envoy image %q is not a pinned envoyproxy/envoy:v1.3x", p.name, c.Image)
			}
			for _, cp := range c.Ports {
				if cp.ContainerPort == 9901 {
					t.Errorf("%s: admin port exposed as a container port", p.name)
				}
			}
		}
	}
}

// Disabled services render nothing; enabling them is a values entry.
func TestOnlyEnabledServicesRender(t *testing.T) {
	deployments := func(p profile) string {
		var got []string
		for _, d := range decodeAll(t, p).deployments {
			got = append(got, d.Name)
		}
		sort.Strings(got)
		return fmt.Sprint(got)
	}
	if got, want := deployments(identityOnly), "[agentic-envoy agentic-identity agentic-web]"; got != want {
		t.Errorf("identity only: Deployments %v, want %v", got, want)
	}
	all := "[agentic-analytics agentic-catalog agentic-conversations agentic-documents agentic-envoy agentic-identity agentic-mail agentic-wallet agentic-web]"
	if got := deployments(defaults); got != all {
		t.Errorf("defaults: Deployments %v, want %v", got, all)
	}
	ty := decodeAll(t, allServices)
	for _, svc := range []string{"identity", "catalog", "documents", "wallet", "analytics", "conversations", "mail"} {
		if ty.deployment(release+"-"+svc) == nil || ty.service(release+"-"+svc) == nil {
			t.Errorf("all-services: %s has no Deployment/Service", svc)
		}
	}
	if len(ty.monitors) != 7 {
		t.Errorf("all-services with the Prometheus Operator: %d ServiceMonitors, want 7", len(ty.monitors))
	}
	if n := len(decodeAll(t, production).monitors); n != 0 {
		t.Errorf("production without monitoring.coreos.com/v1: %d ServiceMonitors, want 0", n)
	}
	if n := len(decodeAll(t, identityOnly).monitors); n != 1 {
		t.Errorf("identity only with monitoring.coreos.com/v1: %d ServiceMonitors, want 1", n)
	}
}

// A caller declared in grpcCallers gets the callee's gRPC address, so the
// NetworkPolicy and the wiring come from one list.
func TestGRPCCallersGetPeerAddresses(t *testing.T) {
	ty := decodeAll(t, allServices)
	want := map[string]map[string]string{
		"catalog": {"IDENTITY_GRPC_ADDR": release + "-identity:9101", "DOCUMENTS_GRPC_ADDR": release + "-documents:9103"},
		"documents": {"CATALOG_GRPC_ADDR": release + "-catalog:9102", "IDENTITY_GRPC_ADDR": release + "-identity:9101",
			"CONVERSATIONS_GRPC_ADDR": release + "-conversations:9106"},
		// The balance, earnings and debt before deleting an account (issue 29).
		"identity": {"WALLET_GRPC_ADDR": release + "-wallet:9104"},
	}
	for svc, vars := range want {
		cm := ty.configMap(release + "-" + svc)
		if cm == nil {
			t.Fatalf("%s: no ConfigMap", svc)
		}
		for k, v := range vars {
			if cm.Data[k] != v {
				t.Errorf("%s: %s = %q, want %q", svc, k, cm.Data[k], v)
			}
		}
		for k := range cm.Data {
			if strings.HasSuffix(k, "_GRPC_ADDR") && k != "GRPC_ADDR" && vars[k] == "" {
				t.Errorf("%s: unexpected %s", svc, k)
			}
		}
	}
}

// The services find a client's address in X-Forwarded-For (the catalog's
// per-address marketplace limit) skipping the proxies in front of Envoy:
// TRUSTED_PROXY_HOPS follows envoy.xffNumTrustedHops.
func TestTrustedProxyHopsFollowEnvoy(t *testing.T) {
	for _, c := range []struct {
		p    profile
		want string
	}{{defaults, "0"}, {production, "1"}} {
		cm := decodeAll(t, c.p).configMap(release + "-catalog")
		if cm == nil || cm.Data["TRUSTED_PROXY_HOPS"] != c.want {
			t.Errorf("%s: catalog TRUSTED_PROXY_HOPS = %v, want %s", c.p.name, cm, c.want)
		}
	}
}

// The marketplace switch reaches every service (default on); the
// all-services test values turn it off.
func TestMarketplaceSwitchReachesEveryService(t *testing.T) {
	for _, c := range []struct {
		p    profile
		want string
	}{{defaults, "true"}, {allServices, "false"}} {
		for _, svc := range []string{"identity", "catalog", "conversations", "wallet"} {
			cm := decodeAll(t, c.p).configMap(release + "-" + svc)
			if cm == nil {
				continue // not enabled in this profile
			}
			if cm.Data["MARKETPLACE_ENABLED"] != c.want {
				t.Errorf("%s: %s MARKETPLACE_ENABLED = %q, want %s", c.p.name, svc, cm.Data["MARKETPLACE_ENABLED"], c.want)
			}
		}
	}
}

// Services whose e-mails or pages link to the app know its public origin
// (without it the mail service's notification links would point at
// localhost).
func TestAppBaseURLWhereLinksAreMade(t *testing.T) {
	ty := decodeAll(t, production)
	for _, svc := range []string{"mail", "wallet", "catalog"} {
		cm := ty.configMap(release + "-" + svc)
		if cm == nil || !strings.HasPrefix(cm.Data["APP_BASE_URL"], "https://") {
			t.Errorf("%s APP_BASE_URL = %v", svc, cm)
		}
	}
}

// Secrets come from existing Secrets; the wallet gets its Stripe keys that way.
func TestWalletSecretsAreReferenced(t *testing.T) {
	ty := decodeAll(t, allServices)
	d := ty.deployment(release + "-wallet")
	if d == nil {
		t.Fatal("no wallet Deployment")
	}
	refs := map[string]string{}
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			refs[e.Name] = e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
		}
	}
	for _, name := range []string{"DATABASE_URL", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "REDIS_URL"} {
		if refs[name] == "" {
			t.Errorf("wallet %s is not read from a Secret (refs %v)", name, refs)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// The agents' inbox: port 25 on a LoadBalancer to the mail pods' SMTP port,
// keeping the client address (SPF needs it); TLS and DKIM keys are mounted
// Secrets, never ConfigMap values.
func TestMailSMTPService(t *testing.T) {
	ty := decodeAll(t, allServices)
	s := ty.service(release + "-mail-smtp")
	if s == nil {
		t.Fatal("no mail SMTP Service")
	}
	if s.Spec.Type != "LoadBalancer" || len(s.Spec.Ports) != 1 || s.Spec.Ports[0].Port != 25 || s.Spec.Ports[0].TargetPort.StrVal != "smtp" {
		t.Errorf("mail SMTP Service: type %s ports %+v, want LoadBalancer 25 -> smtp", s.Spec.Type, s.Spec.Ports)
	}
	if s.Spec.ExternalTrafficPolicy != "Local" {
		t.Errorf("externalTrafficPolicy %q, want Local (SPF needs the client address)", s.Spec.ExternalTrafficPolicy)
	}
	d := ty.deployment(release + "-mail")
	var mounts []string
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Secret != nil {
			mounts = append(mounts, v.Secret.SecretName)
		}
	}
	sort.Strings(mounts)
	if fmt.Sprint(mounts) != "[agentic-mail-dkim agentic-mail-grpc-tls agentic-mail-tls agentic-mail-tls]" {
		t.Errorf("mail Secret volumes %v", mounts)
	}
}
