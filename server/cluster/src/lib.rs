//! policylens-cluster: the only crate that knows kube. It reads a live cluster, read-only, and
//! hands the loader every object that takes part in policy attachment as text (JSON, which is
//! YAML), named by a `cluster://` path, so the unchanged engine analyses it beside the files.
//!
//! Only `get`, `list` and `watch` are ever sent (`watch` by the language server, `watch.rs`).
//! Secrets are never requested. Faults degrade: a kind the credentials may not list (401/403)
//! is skipped with one message; server errors and timeouts are retried with backoff; an
//! unreachable server is an error that names its address.

mod watch;

pub use watch::{Change, Watcher, watch};

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use kube::api::{Api, DynamicObject, ListParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::discovery::{ApiGroup, ApiResource, Discovery, verbs};
use kube::{Client, Config};
use policylens_core::catalog::Catalog;
use policylens_core::model::GroupKind;

/// Which cluster to read.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A kubeconfig file (default: `KUBECONFIG`, else `~/.kube/config`, else in-cluster).
    pub kubeconfig: Option<PathBuf>,
    /// A context of the kubeconfig (default: its current context).
    pub context: Option<String>,
    /// How long one request of the read may wait for the server's answer before it is tried
    /// again (default 30 s). Watches are not bounded by it.
    pub request_timeout: Option<Duration>,
}

/// One object read from the cluster.
#[derive(Clone, Debug)]
pub struct ClusterObject {
    /// `cluster://CONTEXT/NAMESPACE/Kind.group/NAME` (`_` for cluster-scoped objects).
    pub path: String,
    /// The object as JSON, `apiVersion` and `kind` set.
    pub text: String,
}

/// What a read produced.
#[derive(Debug, Default)]
pub struct Snapshot {
    pub objects: Vec<ClusterObject>,
    /// Each kind read, with the list's resourceVersion: where a watch resumes.
    kinds: Vec<Listed>,
    /// The API server's address.
    pub server: String,
    pub context: String,
    /// Kinds skipped, and why (one message each).
    pub warnings: Vec<String>,
}

/// Kinds read besides the policies: what the hierarchy is made of.
const TOPOLOGY: &[(&str, &str)] = &[
    ("gateway.networking.k8s.io", "GatewayClass"),
    ("gateway.networking.k8s.io", "Gateway"),
    ("gateway.networking.k8s.io", "ListenerSet"),
    ("gateway.networking.x-k8s.io", "XListenerSet"),
    ("gateway.networking.k8s.io", "HTTPRoute"),
    ("gateway.networking.k8s.io", "GRPCRoute"),
    ("gateway.networking.k8s.io", "TLSRoute"),
    ("gateway.networking.k8s.io", "TCPRoute"),
    ("gateway.networking.k8s.io", "UDPRoute"),
    ("gateway.networking.k8s.io", "ReferenceGrant"),
    ("", "Service"),
    ("", "Namespace"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
];

/// One kind as listed: a watch of it starts at `resource_version`, knowing `paths`.
#[derive(Clone, Debug)]
struct Listed {
    ar: ApiResource,
    resource_version: String,
    paths: BTreeSet<String>,
}

/// The label a CRD of a policy kind carries (GEP-713).
const POLICY_LABEL: &str = "gateway.networking.k8s.io/policy";

/// Retries of a list that failed with a server error or a timeout.
const RETRIES: u32 = 3;

/// Reads the cluster once. Blocking: runs its own small runtime.
pub fn read(opts: &Options) -> Result<Snapshot, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the cluster reader: {e}"))?;
    rt.block_on(read_async(opts))
}

async fn config(opts: &Options) -> Result<(Config, String), String> {
    let options = KubeConfigOptions { context: opts.context.clone(), ..Default::default() };
    let path = opts.kubeconfig.clone().or_else(|| std::env::var_os("KUBECONFIG").map(PathBuf::from));
    match path {
        Some(p) => {
            let kc = Kubeconfig::read_from(&p).map_err(|e| format!("kubeconfig {}: {e}", p.display()))?;
            let context = opts.context.clone().or_else(|| kc.current_context.clone()).unwrap_or_default();
            let config = Config::from_custom_kubeconfig(kc, &options)
                .await
                .map_err(|e| format!("kubeconfig {}: {e}", p.display()))?;
            Ok((config, context))
        }
        None => {
            let config = Config::infer().await.map_err(|e| format!("no cluster configured: {e}"))?;
            Ok((config, opts.context.clone().unwrap_or_else(|| "default".into())))
        }
    }
}

async fn read_async(opts: &Options) -> Result<Snapshot, String> {
    let (mut config, context) = config(opts).await?;
    config.connect_timeout = Some(Duration::from_secs(5));
    config.read_timeout = Some(opts.request_timeout.unwrap_or(Duration::from_secs(30)));
    let server = config.cluster_url.to_string();
    let client = Client::try_from(config).map_err(|e| format!("{server}: {e}"))?;
    let discovered = discover(&client).await.map_err(|e| format!("cannot reach the cluster at {server}: {e}"))?;
    let mut snap = Snapshot { server, context, ..Default::default() };

    // Every kind at its most stable served version: not only the group's preferred version's
    // kinds (many clusters serve ReferenceGrant only at v1beta1 beside a v1 group).
    let mut served: Vec<ApiResource> = discovered
        .iter()
        .flat_map(Discovery::groups)
        .flat_map(|g| g.resources_by_stability())
        .filter(|(ar, caps)| caps.supports_operation(verbs::LIST) && ar.kind != "Secret")
        .map(|(ar, _)| ar)
        .collect();
    served.sort_by(|a, b| (&a.group, &a.kind).cmp(&(&b.group, &b.kind)));
    // CRDs first: their labels say which served kinds are policies.
    let crd = served.iter().find(|ar| ar.group == "apiextensions.k8s.io" && ar.kind == "CustomResourceDefinition");
    let mut labelled: BTreeSet<(String, String)> = BTreeSet::new();
    if let Some(ar) = crd {
        let objects = list(&client, ar, &mut snap).await;
        for o in objects.iter().flat_map(|(items, _)| items) {
            let is_policy = o.metadata.labels.as_ref().is_some_and(|l| l.contains_key(POLICY_LABEL));
            let group = o.data.pointer("/spec/group").and_then(|v| v.as_str());
            let kind = o.data.pointer("/spec/names/kind").and_then(|v| v.as_str());
            if let (true, Some(g), Some(k)) = (is_policy, group, kind) {
                labelled.insert((g.to_owned(), k.to_owned()));
            }
        }
        push(&mut snap, ar, objects);
    }
    let catalog = Catalog::builtin();
    let wanted: Vec<&ApiResource> = served
        .iter()
        .filter(|ar| Some(*ar) != crd)
        .filter(|ar| {
            let gk = GroupKind::new(&ar.group, &ar.kind);
            TOPOLOGY.iter().any(|(g, k)| gk.is(g, k))
                || catalog.get(&gk).is_some()
                || labelled.contains(&(ar.group.clone(), ar.kind.clone()))
        })
        .collect();
    // The kinds' lists at once: a cluster's latency is paid once, not once per kind. Each
    // list becomes text as it arrives, so the decoded lists are not all alive together.
    let context = snap.context.clone();
    let lists = futures_util::future::join_all(wanted.iter().map(|&ar| {
        let (context, client) = (&context, &client);
        async move {
            let (objects, resource_version) = list_raw(client, ar, context).await?;
            let paths = objects.iter().map(|o| o.path.clone()).collect();
            Ok::<_, String>((objects, Listed { ar: ar.clone(), resource_version, paths }))
        }
    }))
    .await;
    for listed in lists {
        match listed {
            Ok((objects, l)) => {
                snap.objects.extend(objects);
                snap.kinds.push(l);
            }
            Err(w) => snap.warnings.push(w),
        }
    }
    Ok(snap)
}

/// Discovery of every API group at once, the core group's too. `Discovery::run` asks group
/// after group, a round trip each (30 and more on a real cluster); here each group is one
/// discovery of its own (which asks for the group list again), all in flight together.
async fn discover(client: &Client) -> kube::Result<Vec<Discovery>> {
    let groups = client.list_api_groups().await?.groups;
    let names = groups.iter().map(|g| g.name.as_str()).chain([ApiGroup::CORE_GROUP]);
    futures_util::future::try_join_all(names.map(|g| Discovery::new(client.clone()).filter(&[g]).run())).await
}

/// Lists every object of one resource (all namespaces) with the list's resourceVersion,
/// retrying server errors and timeouts with backoff; a kind the credentials may not list is
/// skipped with a warning (`None`).
async fn list(client: &Client, ar: &ApiResource, snap: &mut Snapshot) -> Option<(Vec<DynamicObject>, String)> {
    match list_once(client, ar).await {
        Ok(l) => Some(l),
        Err(w) => {
            snap.warnings.push(w);
            None
        }
    }
}

async fn list_once(client: &Client, ar: &ApiResource) -> Result<(Vec<DynamicObject>, String), String> {
    let api: Api<DynamicObject> = Api::all_with(client.clone(), ar);
    let mut delay = Duration::from_millis(200);
    for attempt in 0..=RETRIES {
        match api.list(&ListParams::default()).await {
            Ok(list) => return Ok((list.items, list.metadata.resource_version.unwrap_or_default())),
            Err(kube::Error::Api(e)) if e.code == 401 || e.code == 403 => {
                return Err(format!("{}: not allowed to list ({}); skipped", plural(ar), e.code));
            }
            Err(_) if attempt < RETRIES => {
                tokio::time::sleep(delay + jitter()).await;
                delay *= 2;
            }
            Err(e) => return Err(format!("{}: {e}; skipped after {} tries", plural(ar), RETRIES + 1)),
        }
    }
    Err(format!("{}: skipped", plural(ar)))
}

/// A list as the API server wrote it: the items stay JSON text, not decoded.
#[derive(serde::Deserialize)]
struct RawList<'a> {
    #[serde(default)]
    metadata: RawListMeta,
    #[serde(borrow, default)]
    items: Vec<&'a serde_json::value::RawValue>,
}

#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct RawListMeta {
    #[serde(default)]
    resource_version: String,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawItem {
    metadata: RawItemMeta,
    /// Set on custom resources' items; built-in kinds' items leave both out.
    api_version: Option<serde::de::IgnoredAny>,
    kind: Option<serde::de::IgnoredAny>,
}

#[derive(serde::Deserialize)]
struct RawItemMeta {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: Option<String>,
}

/// [`list_once`] for the one-shot read: each item's JSON text is kept as the server sent it,
/// with `apiVersion` and `kind` put in front, instead of being decoded into a
/// `DynamicObject` and written out again (most of what reading a cluster cost).
async fn list_raw(client: &Client, ar: &ApiResource, context: &str) -> Result<(Vec<ClusterObject>, String), String> {
    use kube::Resource;
    let url = DynamicObject::url_path(ar, None);
    let mut delay = Duration::from_millis(200);
    let mut attempt = 0;
    let text = loop {
        let request = kube::core::Request::new(url.clone())
            .list(&ListParams::default())
            .map_err(|e| format!("{}: {e}", plural(ar)))?;
        match client.request_text(request).await {
            Ok(text) => break text,
            Err(kube::Error::Api(e)) if e.code == 401 || e.code == 403 => {
                return Err(format!("{}: not allowed to list ({}); skipped", plural(ar), e.code));
            }
            Err(_) if attempt < RETRIES => {
                attempt += 1;
                tokio::time::sleep(delay + jitter()).await;
                delay *= 2;
            }
            Err(e) => return Err(format!("{}: {e}; skipped after {} tries", plural(ar), RETRIES + 1)),
        }
    };
    let list: RawList<'_> = serde_json::from_str(&text).map_err(|e| format!("{}: not a list: {e}", plural(ar)))?;
    let api_version = format!("\"apiVersion\":{},", serde_json::Value::from(ar.api_version.as_str()));
    let kind = format!("\"kind\":{},", serde_json::Value::from(ar.kind.as_str()));
    let mut objects = Vec::with_capacity(list.items.len());
    for item in list.items {
        let raw = item.get();
        let (Ok(meta), Some(rest)) = (serde_json::from_str::<RawItem>(raw), raw.trim_start().strip_prefix('{')) else {
            continue;
        };
        let ns = meta.metadata.namespace.as_deref().unwrap_or("_");
        let path = path_of(context, ar, ns, &meta.metadata.name);
        let mut text = String::with_capacity(raw.len() + api_version.len() + kind.len() + 1);
        text.push('{');
        if meta.api_version.is_none() {
            text.push_str(&api_version);
        }
        if meta.kind.is_none() {
            text.push_str(&kind);
        }
        text.push_str(rest);
        objects.push(ClusterObject { path, text });
    }
    Ok((objects, list.metadata.resource_version))
}

/// Up to 100 ms from the clock: no two clients retry in lockstep.
fn jitter() -> Duration {
    let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_millis());
    Duration::from_millis(u64::from(ms % 100))
}

fn plural(ar: &ApiResource) -> String {
    if ar.group.is_empty() { ar.plural.clone() } else { format!("{}.{}", ar.plural, ar.group) }
}

/// Adds a kind's listed objects as text, and the kind as watchable from the list's version.
fn push(snap: &mut Snapshot, ar: &ApiResource, listed: Option<(Vec<DynamicObject>, String)>) {
    let Some((objects, resource_version)) = listed else { return };
    let mut paths = BTreeSet::new();
    for o in objects {
        if let Some(c) = to_text(&snap.context, ar, o) {
            paths.insert(c.path.clone());
            snap.objects.push(c);
        }
    }
    snap.kinds.push(Listed { ar: ar.clone(), resource_version, paths });
}

/// An object as text under its `cluster://` path. A real API server leaves `apiVersion` and
/// `kind` out of list items: they come from the resource listed.
fn to_text(context: &str, ar: &ApiResource, mut o: DynamicObject) -> Option<ClusterObject> {
    o.types = Some(kube::api::TypeMeta { api_version: ar.api_version.clone(), kind: ar.kind.clone() });
    let text = serde_json::to_string(&o).ok()?;
    let ns = o.metadata.namespace.as_deref().unwrap_or("_");
    let name = o.metadata.name.as_deref().unwrap_or("_");
    Some(ClusterObject { path: path_of(context, ar, ns, name), text })
}

fn path_of(context: &str, ar: &ApiResource, ns: &str, name: &str) -> String {
    let kind = if ar.group.is_empty() { ar.kind.clone() } else { format!("{}.{}", ar.kind, ar.group) };
    format!("cluster://{context}/{ns}/{kind}/{name}")
}
