//! The open world (docs/semantics.md §4.11): objects the files do not hold but something in
//! them makes. A Helm release renders whatever its chart holds; an operator creates Services
//! from its custom resources by a documented rule; a Gateway's implementation provisions its
//! data plane's Service. A reference to a missing object that such a generator, in the referring
//! object's unit and namespace, could make is unknown, not missing (`certainty.rs`).
//!
//! Each kind that makes objects is one entry of [`RULES`], modelled on what its implementation
//! does and citing where. The first entry of an object's kind that answers decides: an entry
//! placed before another for the same kind can claim some of its objects (a renderer that
//! renders a chart's releases concretely answers [`Makes::Rendered`] for them: closed for what
//! it renders, because those objects are then in the world).

use std::collections::HashMap;
use std::sync::Arc;

use super::certainty::Wanted;
use super::{ObjId, World};
use crate::catalog::controllers::{self, created_class, implementation};
use crate::model::{Body, GATEWAY_GROUP, GroupKind, HELM_CHART_ITEM, Object, is_placeholder};

/// What a generator makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Makes {
    /// Whatever a chart holds: objects of any kind and name (a Helm release).
    Anything,
    /// Objects named by the implementation's rule.
    Named { gk: GroupKind, names: Vec<String> },
    /// Objects whose names start and end so (a hash or a template action between), shown as
    /// `shown`.
    Like { gk: GroupKind, prefix: String, suffix: String, shown: String },
    /// Rendered concretely (the objects are in the world): nothing else.
    Rendered,
}

/// Where a generator's objects go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// The generating object's own namespace.
    Own,
    Namespace(Arc<str>),
    /// A namespace the files do not say (the implementation's own, a template's).
    Any,
}

/// One thing a generator makes, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Product {
    pub place: Place,
    pub makes: Makes,
}

/// How a kind makes objects: `makes` answers for one object of the kind (`None`: this entry
/// does not apply to it; a later entry for the kind may).
pub struct Rule {
    pub group: &'static str,
    pub kind: &'static str,
    pub makes: fn(&World, ObjId) -> Option<Vec<Product>>,
}

/// Every kind that makes objects the files do not hold, first match wins per object.
pub static RULES: &[Rule] = &[
    // fluxcd/helm-controller `api/v2/helmrelease_types.go`: the chart's objects go to
    // `spec.targetNamespace`, else the HelmRelease's namespace.
    Rule { group: "helm.toolkit.fluxcd.io", kind: "HelmRelease", makes: helm_release },
    // argoproj/argo-cd `pkg/apis/application/v1alpha1/types.go`: a Helm source's objects go to
    // `spec.destination.namespace`.
    Rule { group: "argoproj.io", kind: "Application", makes: helm_release },
    // A kustomization's `helmCharts` item of app-template (`model::helm_chart_items`): its
    // objects go where the kustomization puts them, as the item's own.
    Rule { group: HELM_CHART_ITEM.0, kind: HELM_CHART_ITEM.1, makes: helm_release },
    // grafana/grafana-operator `controllers/model/resources.go` `GetGrafanaService`:
    // `<name>-service` in the Grafana's namespace.
    Rule { group: "grafana.integreatly.org", kind: "Grafana", makes: grafana },
    // VictoriaMetrics/operator d0d258c8 `api/operator/v1beta1/*_types.go` `PrefixedName`
    // (`vmsingle-<name>`, ...) and `vmextra_types.go` `ClusterPrefixedName` (`vmselect-<name>`,
    // ...): the Service of each component, in the resource's namespace.
    Rule { group: "operator.victoriametrics.com", kind: "VMSingle", makes: victoria_metrics },
    Rule { group: "operator.victoriametrics.com", kind: "VMAgent", makes: victoria_metrics },
    Rule { group: "operator.victoriametrics.com", kind: "VMAlert", makes: victoria_metrics },
    Rule { group: "operator.victoriametrics.com", kind: "VMAlertmanager", makes: victoria_metrics },
    Rule { group: "operator.victoriametrics.com", kind: "VMAuth", makes: victoria_metrics },
    Rule { group: "operator.victoriametrics.com", kind: "VMAnomaly", makes: victoria_metrics },
    Rule { group: "operator.victoriametrics.com", kind: "VLogs", makes: victoria_metrics },
    Rule { group: "operator.victoriametrics.com", kind: "VLSingle", makes: victoria_metrics },
    Rule { group: "operator.victoriametrics.com", kind: "VLAgent", makes: victoria_metrics },
    Rule { group: "operator.victoriametrics.com", kind: "VTSingle", makes: victoria_metrics },
    Rule { group: "operator.victoriametrics.com", kind: "VMCluster", makes: victoria_metrics },
    Rule { group: "operator.victoriametrics.com", kind: "VLCluster", makes: victoria_metrics },
    Rule { group: "operator.victoriametrics.com", kind: "VTCluster", makes: victoria_metrics },
    // ray-project/kuberay `ray-operator/controllers/ray/utils/util.go`
    // `GenerateHeadServiceName` (`<name>-head-svc`) and `GenerateServeServiceName`
    // (`<name>-serve-svc`): a RayService keeps both under its own name; a RayCluster its head.
    Rule { group: "ray.io", kind: "RayService", makes: ray_service },
    Rule { group: "ray.io", kind: "RayCluster", makes: ray_cluster },
    // The Service each implementation provisions for a Gateway's data plane.
    Rule { group: GATEWAY_GROUP, kind: "Gateway", makes: gateway_data_plane },
];

fn service() -> GroupKind {
    GroupKind::new("", "Service")
}

fn named(names: Vec<String>) -> Option<Vec<Product>> {
    Some(vec![Product { place: Place::Own, makes: Makes::Named { gk: service(), names } }])
}

fn helm_release(world: &World, id: ObjId) -> Option<Vec<Product>> {
    // A Flux HelmRelease (`model::Release`): an app-template release whose values are all in
    // its file renders here, and makes nothing the files do not hold.
    if let Some(r) = world.object(id).release() {
        let place = match &r.target_namespace {
            Some(ns) if !is_placeholder(&ns.value) => Place::Namespace(Arc::from(&*ns.value)),
            Some(_) => Place::Any,
            None => Place::Own,
        };
        let makes = if !r.open && world.renders_here(id) { Makes::Rendered } else { Makes::Anything };
        return Some(vec![Product { place, makes }]);
    }
    let Body::Other(o) = &world.object(id).body else { return None };
    let release = o.release.as_ref()?;
    let place = match &release.namespace {
        Some(ns) if !is_placeholder(ns) => Place::Namespace(Arc::from(ns.as_str())),
        Some(_) => Place::Any,
        // An Argo CD Application without a destination namespace installs what names none into
        // the cluster's default namespace.
        None if world.object(id).group() == "argoproj.io" => Place::Namespace(world.default_namespace.clone()),
        None => Place::Own,
    };
    Some(vec![Product { place, makes: Makes::Anything }])
}

fn grafana(world: &World, id: ObjId) -> Option<Vec<Product>> {
    named(vec![format!("{}-service", world.name_of(id))])
}

fn victoria_metrics(world: &World, id: ObjId) -> Option<Vec<Product>> {
    let name = world.name_of(id);
    let kind = world.object(id).kind();
    let cluster = |prefix: &str| {
        ["select", "insert", "storage", "clusterlb"].iter().map(|c| format!("{prefix}{c}-{name}")).collect()
    };
    named(match kind {
        "VMCluster" => cluster("vm"),
        "VLCluster" => cluster("vl"),
        "VTCluster" => cluster("vt"),
        _ => vec![format!("{}-{name}", kind.to_ascii_lowercase())],
    })
}

fn ray_service(world: &World, id: ObjId) -> Option<Vec<Product>> {
    let name = world.name_of(id);
    named(vec![format!("{name}-head-svc"), format!("{name}-serve-svc")])
}

fn ray_cluster(world: &World, id: ObjId) -> Option<Vec<Product>> {
    named(vec![format!("{}-head-svc", world.name_of(id))])
}

/// The Service an implementation provisions for Gateway `id`, by its class's controller.
fn gateway_data_plane(world: &World, id: ObjId) -> Option<Vec<Product>> {
    let Body::Gateway(g) = &world.object(id).body else { return None };
    let class = g.class_name.as_ref().map(|c| c.value.as_str()).filter(|c| !is_placeholder(c))?;
    let gc = GroupKind::new(GATEWAY_GROUP, "GatewayClass");
    let controller = match world.lookup_from(id, &gc, None, class) {
        Some(c) => match &world.object(c).body {
            Body::GatewayClass(gc) => gc.controller_name.clone()?,
            _ => return None,
        },
        None => created_class(class)?.controller_name.to_owned(),
    };
    let name = world.name_of(id);
    let ns = world.namespace_of(id).unwrap_or("");
    let own = |names: Vec<String>| Product { place: Place::Own, makes: Makes::Named { gk: service(), names } };
    Some(match implementation(&controller)?.id {
        // envoyproxy/gateway d32f2829 `internal/gatewayapi/translator.go` `buildIR` (the
        // proxy's name is `<namespace>/<name>`, or the Gateway's name in its own namespace in
        // GatewayNamespaceMode), `internal/infrastructure/kubernetes/proxy/resource.go`
        // `ExpectedResourceHashedName` and `internal/utils/misc.go` `GetHashedName`:
        // `envoy-<namespace>-<name>-<8 hex>` in Envoy Gateway's own namespace.
        controllers::ENVOY_GATEWAY => {
            let full = format!("{ns}-{name}");
            let cut = if full.len() > 48 { full[..48].trim_end_matches('-') } else { full.as_str() };
            let prefix = format!("envoy-{cut}-");
            let like = Makes::Like { gk: service(), shown: format!("{prefix}<hash>"), prefix, suffix: String::new() };
            vec![Product { place: Place::Any, makes: like }, own(vec![name.to_owned()])]
        }
        // istio/istio 86c9f01f `pilot/pkg/config/kube/gatewaycommon/gateway_utils.go`
        // `GetDefaultName`: `<name>-<class>`; classes with `DisableNameSuffix` (waypoints,
        // east-west, agentgateway: `classinfo.go`) keep the Gateway's name.
        controllers::ISTIO if controller == "istio.io/gateway-controller" => vec![own(vec![format!("{name}-{class}")])],
        controllers::ISTIO => vec![own(vec![name.to_owned()])],
        // nginx/nginx-gateway-fabric e55bfe33 `internal/controller/provisioner/handler.go`
        // `CreateNginxResourceName(<name>, <class>)`.
        controllers::NGINX_GATEWAY_FABRIC => vec![own(vec![format!("{name}-{class}")])],
        // cilium/cilium `operator/pkg/model/translation/gateway-api/translator.go`
        // (`ciliumGatewayPrefix`): `cilium-gateway-<name>`.
        controllers::CILIUM => vec![own(vec![format!("cilium-gateway-{name}")])],
        // kgateway-dev/kgateway 06ff8b9d `internal/kgateway/deployer/deployer.go` (the release is
        // named after the Gateway) and `helm/gloo-gateway/templates/_helpers.tpl` (`fullname` is
        // the release name).
        controllers::KGATEWAY => vec![own(vec![name.to_owned()])],
        _ => return None,
    })
}

/// One generator: an object (or a kustomization's `helmCharts` item) and what it makes.
#[derive(Clone, Debug)]
pub struct Generator {
    /// How messages name it: ``HelmRelease `media/sonarr` ``.
    pub label: Arc<str>,
    /// Its name (a release's, an operator resource's): of two generators that could make an
    /// object, the one whose name the object's starts with is named.
    pub name: Arc<str>,
    pub unit: u32,
    /// `None`: any namespace.
    pub namespace: Option<Arc<str>>,
    pub makes: Makes,
}

impl Generator {
    /// Whether it could make `wanted`.
    fn could_make(&self, wanted: &Wanted<'_>) -> bool {
        if let (Some(ns), Some(w)) = (&self.namespace, wanted.namespace)
            && **ns != *w
        {
            return false;
        }
        match &self.makes {
            Makes::Anything => true,
            Makes::Named { gk, names } => gk == wanted.gk && names.iter().any(|n| n == wanted.name),
            Makes::Like { gk, prefix, suffix, .. } => {
                gk == wanted.gk
                    && wanted.name.len() > prefix.len() + suffix.len()
                    && wanted.name.starts_with(prefix.as_str())
                    && wanted.name.ends_with(suffix.as_str())
            }
            Makes::Rendered => false,
        }
    }

    /// Whether it makes objects of kind `gk` in `namespace` (`None`: any).
    fn makes_kind(&self, gk: &GroupKind, namespace: Option<&str>) -> bool {
        if let (Some(ns), Some(w)) = (&self.namespace, namespace)
            && **ns != *w
        {
            return false;
        }
        match &self.makes {
            Makes::Anything => true,
            Makes::Named { gk: g, .. } | Makes::Like { gk: g, .. } => g == gk,
            Makes::Rendered => false,
        }
    }

    /// What it does with `wanted`, in words (after "not in the files; ").
    fn words(&self, wanted: &Wanted<'_>) -> String {
        match &self.makes {
            Makes::Anything | Makes::Rendered => format!("{} may render it", self.label),
            Makes::Named { gk, .. } => format!("{} creates {} `{}`", self.label, gk.kind, wanted.name),
            Makes::Like { gk, shown, .. } => format!("{} makes {} `{shown}`, which may be it", self.label, gk.kind),
        }
    }
}

/// The generators of a world.
#[derive(Debug, Default)]
pub struct Generators {
    list: Vec<Generator>,
}

impl Generators {
    pub(super) fn build(world: &World) -> Generators {
        let mut list = Vec::new();
        let mut by_kind: HashMap<(&str, &str), Vec<&Rule>> = HashMap::new();
        for r in RULES {
            by_kind.entry((r.group, r.kind)).or_default().push(r);
        }
        let mut flux: Option<ObjId> = None;
        for id in world.ids() {
            let o = world.object(id);
            if flux.is_none() && o.group().ends_with(".toolkit.fluxcd.io") {
                flux = Some(id);
            }
            if o.templated {
                list.extend(templated(world, id, o));
            }
            list.extend(released(world, id, o));
            let Some(rules) = by_kind.get(&(o.group(), o.kind())) else { continue };
            let Some(products) = rules.iter().find_map(|r| (r.makes)(world, id)) else { continue };
            let label: Arc<str> = match world.namespace_of(id) {
                Some(ns) => format!("{} `{ns}/{}`", o.kind(), world.name_of(id)),
                None => format!("{} `{}`", o.kind(), world.name_of(id)),
            }
            .into();
            let name: Arc<str> = world.name_of(id).into();
            for p in products {
                let namespace = match p.place {
                    Place::Own => world.namespace_of(id).map(Arc::from),
                    Place::Namespace(ns) => Some(ns),
                    Place::Any => None,
                };
                let unit = world.unit_of(id);
                list.push(Generator { label: label.clone(), name: name.clone(), unit, namespace, makes: p.makes });
            }
        }
        // fluxcd/notification-controller `config/manager/service.yaml`: where Flux is installed,
        // its namespace (`flux-system` by default) holds these Services.
        if let Some(id) = flux {
            list.push(Generator {
                label: "Flux's notification-controller".into(),
                name: "notification-controller".into(),
                unit: world.unit_of(id),
                namespace: Some("flux-system".into()),
                makes: Makes::Named {
                    gk: service(),
                    names: vec!["webhook-receiver".into(), "notification-controller".into()],
                },
            });
        }
        list.extend(helm_charts(world));
        Generators { list }
    }

    /// A generator `from`'s unit sees that could make `wanted`: the one named like it (a
    /// release `zigbee` for a route `zigbee`), else the first.
    /// A release rendered here that the wanted name is named after (`echo-app` after `echo`)
    /// closes the question: the object is meant to be its, and it renders no such object.
    fn find(&self, unit: u32, wanted: &Wanted<'_>) -> Option<&Generator> {
        let seen = |g: &&Generator| g.unit == 0 || g.unit == unit;
        let same_ns = |g: &&Generator| match (&g.namespace, wanted.namespace) {
            (Some(ns), Some(w)) => **ns == *w,
            _ => true,
        };
        if self
            .list
            .iter()
            .filter(seen)
            .filter(same_ns)
            .any(|g| matches!(g.makes, Makes::Rendered) && !g.name.is_empty() && wanted.name.starts_with(&*g.name))
        {
            return None;
        }
        let mut able = self.list.iter().filter(|g| (g.unit == 0 || g.unit == unit) && g.could_make(wanted));
        let first = able.next()?;
        let named = |g: &&Generator| wanted.name.starts_with(&*g.name);
        Some(if named(&first) { first } else { able.find(named).unwrap_or(first) })
    }

    fn find_kind(&self, unit: u32, gk: &GroupKind, namespace: Option<&str>) -> Option<&Generator> {
        self.list.iter().find(|g| (g.unit == 0 || g.unit == unit) && g.makes_kind(gk, namespace))
    }
}

/// An object whose name holds a template action or a variable (`{{ include "x.fullname" . }}-
/// frontend`, `${APP}-svc`): whatever fills it in makes an object named so. A name that is
/// nothing but a placeholder says nothing of the name: it is left out.
fn templated(world: &World, id: ObjId, o: &Object) -> Option<Generator> {
    let name = world.name_of(id);
    let (prefix, suffix) = literal_ends(name)?;
    let namespace = world.namespace_of(id).filter(|ns| !is_placeholder(ns)).map(Arc::from);
    let file = world.shown_path(&world.file_of(id).path);
    Some(Generator {
        label: format!("`{file}`").into(),
        name: "".into(),
        unit: world.unit_of(id),
        namespace,
        makes: Makes::Like { gk: o.group_kind(), prefix, suffix, shown: name.to_owned() },
    })
}

/// An object of literal name whose namespace is a template's (`{{ .Release.Namespace }}`, or
/// none in a chart's templates): the chart renders it into whichever namespace its release is
/// installed in, so a reference from any namespace may mean it (linkerd/linkerd2 `b24cd4059`
/// `viz/charts/linkerd-viz/templates/prometheus-policy.yaml`: Server `prometheus-admin`, which
/// the repository's `grafana/` policy in `linkerd-viz` targets).
fn released(world: &World, id: ObjId, o: &Object) -> Option<Generator> {
    let name = world.name_of(id);
    if is_placeholder(name) || !world.namespace_of(id).is_some_and(is_placeholder) {
        return None;
    }
    let file = world.shown_path(&world.file_of(id).path);
    Some(Generator {
        label: format!("`{file}`, rendered into its release's namespace,").into(),
        name: "".into(),
        unit: world.unit_of(id),
        namespace: None,
        makes: Makes::Named { gk: o.group_kind(), names: vec![name.to_owned()] },
    })
}

/// The literal text before the first placeholder and after the last one, when together they
/// hold at least a word (`{{ include "x.fullname" . }}-frontend` → `("", "-frontend")`).
fn literal_ends(name: &str) -> Option<(String, String)> {
    let starts = ["{{", "${", "{", "<", "$"];
    let ends = ["}}", "}", ">"];
    let first = starts.iter().filter_map(|s| name.find(s)).min()?;
    let last = ends.iter().filter_map(|e| name.rfind(e).map(|i| i + e.len())).max().unwrap_or(name.len());
    let (prefix, suffix) = (&name[..first], &name[last.max(first)..]);
    let letters = |s: &str| s.chars().filter(char::is_ascii_alphanumeric).count();
    (letters(prefix) + letters(suffix) >= 3).then(|| (prefix.to_owned(), suffix.to_owned()))
}

/// kustomize `helmCharts` (kubernetes-sigs/kustomize `api/types/helmchartargs.go`): each chart
/// inflated renders whatever it holds, in the kustomization's `namespace:`, else the item's own.
fn helm_charts(world: &World) -> Vec<Generator> {
    let mut out = Vec::new();
    for f in world.files.iter() {
        let Some(k) = &f.kustomization else { continue };
        let dir = f.path.rsplit_once('/').map_or("", |(d, _)| d);
        // The unit of what the kustomization applies from its own directory, and the namespace
        // it puts them in when something applies it (a Flux Kustomization's `targetNamespace`);
        // without one, what names no namespace goes to the default.
        let here: Vec<&super::units::Membership> = world
            .files
            .iter()
            .filter(|g| g.path.rsplit_once('/').map_or("", |(d, _)| d) == dir)
            .flat_map(|g| world.units.of(&g.path))
            .collect();
        let unit = here.first().map_or(0, |m| m.unit);
        let applied_ns = here.iter().find_map(|m| m.transform.as_ref()?.namespace.clone());
        for c in &k.helm_charts {
            let release = c.release_name.as_deref().unwrap_or(&c.name.value);
            // An item rendered here is its own generator (`RULES`).
            if f.objects.iter().any(|o| (o.group(), o.kind()) == HELM_CHART_ITEM && o.name.value == release) {
                continue;
            }
            let written = k.namespace.as_ref().map(|n| n.value.clone()).or_else(|| c.namespace.clone());
            let namespace = written.or_else(|| applied_ns.clone()).filter(|n| !is_placeholder(n));
            let file = world.shown_path(&f.path);
            out.push(Generator {
                label: format!("the Helm chart `{}` (release `{release}`) of `{file}`", c.name.value).into(),
                name: release.into(),
                unit,
                namespace: Some(namespace.map_or_else(|| world.default_namespace.clone(), |n| Arc::from(n.as_str()))),
                makes: Makes::Anything,
            });
        }
    }
    out
}

impl World {
    /// What could make `wanted` for a reference in `from`, in words, if anything.
    pub(super) fn generated(&self, from: ObjId, wanted: &Wanted<'_>) -> Option<Arc<str>> {
        let unit = self.unit_of(from);
        if let Some(g) = self.generators().find(unit, wanted) {
            return Some(g.words(wanted).into());
        }
        let outer = self.outer.as_ref()?;
        outer.world.generators().find(unit, wanted).map(|g| g.words(wanted).into())
    }

    /// What makes objects of kind `gk` in `namespace` for a selector in `from`, in words.
    pub(super) fn generates_kind(&self, from: ObjId, gk: &GroupKind, namespace: Option<&str>) -> Option<Arc<str>> {
        let unit = self.unit_of(from);
        let words = |g: &Generator| -> Arc<str> { format!("{} may make objects with these labels", g.label).into() };
        if let Some(g) = self.generators().find_kind(unit, gk, namespace) {
            return Some(words(g));
        }
        let outer = self.outer.as_ref()?;
        outer.world.generators().find_kind(unit, gk, namespace).map(words)
    }

    /// The world's generators (built on first use: only a missing object asks).
    pub fn generators(&self) -> &Generators {
        self.core.generators.get_or_init(|| Generators::build(self))
    }
}

#[cfg(test)]
mod tests {
    use super::literal_ends;

    #[test]
    fn templated_names_keep_their_literal_ends() {
        assert_eq!(literal_ends(r#"{{ include "x.fullname" . }}-frontend"#), Some((String::new(), "-frontend".into())));
        assert_eq!(literal_ends("${APP}-svc"), Some((String::new(), "-svc".into())));
        assert_eq!(literal_ends("shop-{{ .Values.env }}"), Some(("shop-".into(), String::new())));
        // Nothing but a placeholder, or too little around it, says nothing of the name.
        assert_eq!(literal_ends("{{ .Release.Name }}"), None);
        assert_eq!(literal_ends("{{ .Release.Name }}-a"), None);
        assert_eq!(literal_ends("plain"), None);
    }
}
