//! A loopback Kubernetes API server for tests: discovery, lists with `resourceVersion`,
//! namespaced lists, watch streams, injected errors. It records every request so that tests can
//! check the client only reads, and never asks for Secrets. Test and benchmark code: it
//! panics on what it cannot do.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use serde_json::{Value, json};

/// A response the loopback server gives for a path: status and JSON body.
pub type Routes = HashMap<String, (u16, Value)>;

/// What one watch request on a path gets, in the order they come.
pub enum Watch {
    /// These events, then the connection stays open `hold_ms` and ends (as a server's watch
    /// timeout ends it).
    Events { events: Vec<Value>, hold_ms: u64 },
    /// `410 Gone`: the resourceVersion is too old, the client must list again.
    Gone,
}

/// Watch behaviour: scripts per path; past its script (or without one) a watch either gets
/// the list's items as MODIFIED events and a BOOKMARK (what `kubectl get -w` is shown), or,
/// with `hold`, stays open without events (a quiet cluster).
#[derive(Default)]
struct Watches {
    scripts: HashMap<String, std::collections::VecDeque<Watch>>,
    hold: bool,
}

pub struct FakeApi {
    pub addr: String,
    requests: Arc<Mutex<Vec<(String, String)>>>,
    routes: Arc<RwLock<Routes>>,
    stalls: Arc<Mutex<HashMap<String, Vec<u64>>>>,
}

impl FakeApi {
    /// Serves `routes` on 127.0.0.1; paths not in it answer 404 like a real API server. A
    /// path listed in `flaky` fails once with a 500 before it answers.
    pub fn start(routes: Routes, flaky: &[&str]) -> FakeApi {
        FakeApi::start_watching(routes, flaky, HashMap::new(), false)
    }

    /// [`FakeApi::start`] with scripted watches (see [`Watches`]).
    pub fn start_watching(routes: Routes, flaky: &[&str], scripts: HashMap<String, Vec<Watch>>, hold: bool) -> FakeApi {
        FakeApi::serve_on(TcpListener::bind("127.0.0.1:0").unwrap(), routes, flaky, scripts, hold)
    }

    /// [`FakeApi::start`] on a given address, e.g. one nothing listened on before (a cluster
    /// that comes back). Quiet watches.
    pub fn start_at(addr: &str, routes: Routes) -> FakeApi {
        let host = addr.trim_start_matches("http://");
        FakeApi::serve_on(TcpListener::bind(host).unwrap(), routes, &[], HashMap::new(), true)
    }

    fn serve_on(
        listener: TcpListener,
        routes: Routes,
        flaky: &[&str],
        scripts: HashMap<String, Vec<Watch>>,
        hold: bool,
    ) -> FakeApi {
        let addr = format!("http://{}", listener.local_addr().unwrap());
        let requests: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
        let routes = Arc::new(RwLock::new(routes));
        let flaky: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(flaky.iter().map(|s| s.to_string()).collect()));
        let scripts = scripts.into_iter().map(|(k, v)| (k, v.into_iter().collect())).collect();
        let watches = Arc::new(Mutex::new(Watches { scripts, hold }));
        let stalls: Arc<Mutex<HashMap<String, Vec<u64>>>> = Arc::default();
        let (log, served, stalled) = (requests.clone(), routes.clone(), stalls.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                // As the API server does: without it, a response written as head then body
                // waits out the client's delayed ACK (40 ms a request on Linux).
                let _ = stream.set_nodelay(true);
                let (routes, log, flaky, watches) = (served.clone(), log.clone(), flaky.clone(), watches.clone());
                let stalls = stalled.clone();
                std::thread::spawn(move || serve(stream, &routes, &log, &flaky, &watches, &stalls));
            }
        });
        FakeApi { addr, requests, routes, stalls }
    }

    pub fn requests(&self) -> Vec<(String, String)> {
        self.requests.lock().unwrap().clone()
    }

    /// The next requests of a path (list or get, not watch) wait these many milliseconds each
    /// before the answer: a slow or stuck API server.
    pub fn stall(&self, path: &str, delays_ms: &[u64]) {
        self.stalls.lock().unwrap().insert(path.to_owned(), delays_ms.to_vec());
    }

    /// Changes what a path answers from now on (a list after a change in the cluster).
    pub fn set_route(&self, path: &str, status: u16, body: Value) {
        self.routes.write().unwrap().insert(path.to_owned(), (status, body));
    }
}

/// A chunked stream of watch events.
fn write_events(out: &mut TcpStream, events: &[Value], hold_ms: u64) {
    let head =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    let mut body = String::new();
    for e in events {
        let line = format!("{e}\n");
        body.push_str(&format!("{:x}\r\n{line}\r\n", line.len()));
    }
    if out.write_all(head.as_bytes()).and_then(|_| out.write_all(body.as_bytes())).and_then(|_| out.flush()).is_err() {
        return;
    }
    std::thread::sleep(std::time::Duration::from_millis(hold_ms));
    let _ = out.write_all(b"0\r\n\r\n");
}

/// HTTP/1.1 with keep-alive: requests without bodies (the client only reads).
fn serve(
    stream: TcpStream,
    routes: &RwLock<Routes>,
    log: &Mutex<Vec<(String, String)>>,
    flaky: &Mutex<Vec<String>>,
    watches: &Mutex<Watches>,
    stalls: &Mutex<HashMap<String, Vec<u64>>>,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or("").to_owned(), parts.next().unwrap_or("").to_owned());
        let mut length = 0usize;
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            if h == "\r\n" {
                break;
            }
            if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        let _ = reader.read_exact(&mut body);
        log.lock().unwrap().push((method.clone(), target.clone()));
        let path = target.split('?').next().unwrap_or("").to_owned();
        // `/.../namespaces/NS/RESOURCE` lists one namespace: the all-namespaces list, filtered.
        let segs: Vec<&str> = path.split('/').collect();
        let scoped = match segs.iter().rposition(|s| *s == "namespaces") {
            Some(i) if i + 3 == segs.len() => {
                Some((segs[i + 1].to_owned(), format!("{}/{}", segs[..i].join("/"), segs[i + 2])))
            }
            _ => None,
        };
        let fail_once = {
            let mut f = flaky.lock().unwrap();
            match f.iter().position(|p| *p == path) {
                Some(i) => {
                    f.remove(i);
                    true
                }
                None => false,
            }
        };
        // `/.../namespaces/NS/RESOURCE/NAME` gets one object (kubectl's `get KIND NAME`).
        let one = match segs.iter().rposition(|s| *s == "namespaces") {
            Some(i) if i + 4 == segs.len() => Some((
                segs[i + 1].to_owned(),
                format!("{}/{}", segs[..i].join("/"), segs[i + 2]),
                segs[i + 3].to_owned(),
            )),
            _ => None,
        };
        let watch = target.contains("watch=true") || target.contains("watch=1");
        // A plain get or list is written out straight from its route; everything else
        // answers `value`.
        let mut written = None;
        let not_found = || (404, status_body(404, "NotFound", "the server could not find the requested resource"));
        let (status, value) = if fail_once {
            (500, status_body(500, "InternalError", "etcdserver: request timed out"))
        } else if let Some((ns, all, name)) = &one {
            let listed = routes.read().unwrap().get(all).cloned();
            let found = listed.as_ref().and_then(|(_, v)| {
                let items = v["items"].as_array()?;
                let o = items
                    .iter()
                    .find(|o| o["metadata"]["namespace"] == json!(ns) && o["metadata"]["name"] == json!(name))?;
                let mut o = o.clone();
                // A single object carries its apiVersion and kind, unlike list items.
                o["apiVersion"] = v["apiVersion"].clone();
                o["kind"] = json!(v["kind"].as_str().unwrap_or("").trim_end_matches("List"));
                Some(o)
            });
            found.map_or_else(not_found, |o| (200, o))
        } else if let Some((ns, all)) = &scoped {
            match routes.read().unwrap().get(all).cloned() {
                Some((200, mut v)) => {
                    let items: Vec<Value> = v["items"].as_array().cloned().unwrap_or_default();
                    v["items"] = json!(
                        items.into_iter().filter(|o| o["metadata"]["namespace"] == json!(ns)).collect::<Vec<_>>()
                    );
                    (200, v)
                }
                Some(other) => other,
                None => not_found(),
            }
        } else if watch {
            routes.read().unwrap().get(&path).cloned().unwrap_or_else(not_found)
        } else {
            // A plain get or list, written out from the route in place (concurrent requests
            // share the read lock): copying a list of 10k objects first was most of its cost.
            let text = routes.read().unwrap().get(&path).map(|(status, v)| (*status, v.to_string()));
            let (status, text) = text.unwrap_or_else(|| {
                let (status, v) = not_found();
                (status, v.to_string())
            });
            written = Some(text);
            (status, Value::Null) // not read: `written` is the answer
        };
        if watch {
            let (next, hold) = {
                let mut w = watches.lock().unwrap();
                let next = w.scripts.get_mut(&path).and_then(|q| q.pop_front());
                (next, w.hold)
            };
            match next {
                Some(Watch::Events { events, hold_ms }) => return write_events(&mut out, &events, hold_ms),
                Some(Watch::Gone) => {
                    let gone = json!({"type": "ERROR", "object": status_body(410, "Expired", "too old resource version: 4711 (4790)")});
                    return write_events(&mut out, &[gone], 0);
                }
                None if hold => return write_events(&mut out, &[], 60_000),
                None => {}
            }
            // A watch: the list's items as MODIFIED events, a BOOKMARK, then the stream ends.
            let mut events: Vec<Value> = value["items"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|mut o| {
                    // Watch events carry whole objects, apiVersion and kind included.
                    o["apiVersion"] = value["apiVersion"].clone();
                    o["kind"] = json!(value["kind"].as_str().unwrap_or("").trim_end_matches("List"));
                    o["metadata"]["resourceVersion"] = json!("4712");
                    o["metadata"]["labels"] = json!({"watched": "yes"});
                    json!({"type": "MODIFIED", "object": o})
                })
                .collect();
            if target.contains("allowWatchBookmarks=true") {
                events.push(json!({"type": "BOOKMARK", "object": {"kind": value["kind"].as_str().unwrap_or("").trim_end_matches("List"), "apiVersion": value["apiVersion"], "metadata": {"resourceVersion": "4713"}}}));
            }
            return write_events(&mut out, &events, 0);
        }
        let stall = stalls.lock().unwrap().get_mut(&path).and_then(|d| (!d.is_empty()).then(|| d.remove(0)));
        if let Some(ms) = stall {
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
        let text = written.unwrap_or_else(|| value.to_string());
        let reason = match status {
            200 => "OK",
            403 => "Forbidden",
            404 => "Not Found",
            _ => "Internal Server Error",
        };
        let head = format!(
            "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            text.len()
        );
        if out.write_all(head.as_bytes()).and_then(|_| out.write_all(text.as_bytes())).is_err() {
            return;
        }
    }
}

fn status_body(code: u16, reason: &str, message: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message, "reason": reason, "code": code})
}

fn resource(name: &str, kind: &str, namespaced: bool) -> Value {
    json!({"name": name, "singularName": kind.to_ascii_lowercase(), "namespaced": namespaced, "kind": kind,
           "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]})
}

fn list(api_version: &str, kind: &str, mut items: Vec<Value>) -> (u16, Value) {
    // A real API server sets every object's resourceVersion (older than the list's).
    for (i, item) in items.iter_mut().enumerate() {
        if item["metadata"]["resourceVersion"].is_null() {
            item["metadata"]["resourceVersion"] = json!(format!("{}", 4000 + i));
        }
    }
    // A real API server leaves apiVersion and kind out of the items.
    (
        200,
        json!({"apiVersion": api_version, "kind": format!("{kind}List"), "metadata": {"resourceVersion": "4711"}, "items": items}),
    )
}

/// A small cluster: the platform's Gateway and its default policy live only here.
pub fn cluster() -> Routes {
    let gw = "gateway.networking.k8s.io";
    let eg = "gateway.envoyproxy.io";
    let mut r = Routes::new();
    r.insert(
        "/api".into(),
        (200, json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []})),
    );
    let group = |name: &str, versions: &[&str]| {
        json!({"name": name, "versions": versions.iter().map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v})).collect::<Vec<_>>(),
               "preferredVersion": {"groupVersion": format!("{name}/{}", versions[0]), "version": versions[0]}})
    };
    r.insert(
        "/apis".into(),
        (
            200,
            json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": [
            group(gw, &["v1", "v1beta1"]), group(eg, &["v1alpha1"]), group("apiextensions.k8s.io", &["v1"])]}),
        ),
    );
    r.insert("/api/v1".into(), (200, json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": [
        resource("namespaces", "Namespace", false), resource("services", "Service", true), resource("secrets", "Secret", true)]})));
    r.insert(format!("/apis/{gw}/v1"), (200, json!({"kind": "APIResourceList", "groupVersion": format!("{gw}/v1"), "resources": [
        resource("gatewayclasses", "GatewayClass", false), resource("gateways", "Gateway", true), resource("httproutes", "HTTPRoute", true)]})));
    // ReferenceGrant only at v1beta1, as many clusters serve it.
    r.insert(
        format!("/apis/{gw}/v1beta1"),
        (
            200,
            json!({"kind": "APIResourceList", "groupVersion": format!("{gw}/v1beta1"), "resources": [
        resource("referencegrants", "ReferenceGrant", true)]}),
        ),
    );
    r.insert(
        format!("/apis/{eg}/v1alpha1"),
        (
            200,
            json!({"kind": "APIResourceList", "groupVersion": format!("{eg}/v1alpha1"), "resources": [
        resource("backendtrafficpolicies", "BackendTrafficPolicy", true)]}),
        ),
    );
    r.insert(
        "/apis/apiextensions.k8s.io/v1".into(),
        (
            200,
            json!({"kind": "APIResourceList", "groupVersion": "apiextensions.k8s.io/v1", "resources": [
        resource("customresourcedefinitions", "CustomResourceDefinition", false)]}),
        ),
    );

    r.insert("/api/v1/namespaces".into(), list("v1", "Namespace", vec![
        json!({"metadata": {"name": "infra", "labels": {"kubernetes.io/metadata.name": "infra"}}}),
        json!({"metadata": {"name": "shop", "labels": {"kubernetes.io/metadata.name": "shop", "edge-access": "true"}}})]));
    r.insert("/api/v1/services".into(), list("v1", "Service", vec![
        json!({"metadata": {"name": "checkout", "namespace": "shop", "creationTimestamp": "2025-03-01T10:00:00Z"},
               "spec": {"ports": [{"name": "http", "port": 8080}]}})]));
    r.insert(format!("/apis/{gw}/v1/gatewayclasses"), list(&format!("{gw}/v1"), "GatewayClass", vec![
        json!({"metadata": {"name": "eg"}, "spec": {"controllerName": "gateway.envoyproxy.io/gatewayclass-controller"}})]));
    r.insert(format!("/apis/{gw}/v1/gateways"), list(&format!("{gw}/v1"), "Gateway", vec![
        json!({"metadata": {"name": "edge", "namespace": "infra", "creationTimestamp": "2025-01-01T00:00:00Z"},
               "spec": {"gatewayClassName": "eg", "listeners": [{"name": "https", "port": 443, "protocol": "HTTPS",
                 "allowedRoutes": {"namespaces": {"from": "Selector", "selector": {"matchLabels": {"edge-access": "true"}}}}}]}})]));
    r.insert(format!("/apis/{gw}/v1/httproutes"), list(&format!("{gw}/v1"), "HTTPRoute", vec![]));
    r.insert(format!("/apis/{gw}/v1beta1/referencegrants"), (403, status_body(403, "Forbidden",
        "referencegrants.gateway.networking.k8s.io is forbidden: User \"ci\" cannot list resource \"referencegrants\"")));
    r.insert(format!("/apis/{eg}/v1alpha1/backendtrafficpolicies"), list(&format!("{eg}/v1alpha1"), "BackendTrafficPolicy", vec![
        json!({"metadata": {"name": "edge-defaults", "namespace": "infra", "creationTimestamp": "2025-01-02T00:00:00Z"},
               "spec": {"targetRefs": [{"group": gw, "kind": "Gateway", "name": "edge"}], "timeout": {"http": {"requestTimeout": "15s"}}},
               "status": {"ancestors": [{"ancestorRef": {"group": gw, "kind": "Gateway", "name": "edge", "namespace": "infra"},
                 "controllerName": "gateway.envoyproxy.io/gatewayclass-controller",
                 "conditions": [{"type": "Accepted", "status": "True", "reason": "Accepted"}]}]}})]));
    r.insert(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions".into(),
        list("apiextensions.k8s.io/v1", "CustomResourceDefinition", vec![]),
    );
    r
}

/// A kubeconfig in `dir` whose current context points at `server`.
pub fn kubeconfig(dir: &Path, server: &str) -> PathBuf {
    let p = dir.join("kubeconfig");
    std::fs::write(
        &p,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {server}\nusers:\n- name: ci\n  user:\n    token: not-a-secret\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: ci\ncurrent-context: fake\n"
        ),
    )
    .unwrap();
    p
}

/// Routes that serve `objects` (whole objects, `apiVersion` and `kind` set) as a cluster
/// would: discovery of every group and version they use, and a list per kind. Namespaced
/// unless the kind is one of the few cluster-scoped ones policylens reads.
pub fn serving(objects: &[Value]) -> Routes {
    use std::collections::BTreeMap;
    const CLUSTER_SCOPED: &[&str] = &["GatewayClass", "Namespace", "CustomResourceDefinition"];
    // (group, version) → kind → items.
    let mut by_gv: BTreeMap<(String, String), BTreeMap<String, Vec<Value>>> = BTreeMap::new();
    for o in objects {
        let (Some(api_version), Some(kind)) = (o["apiVersion"].as_str(), o["kind"].as_str()) else { continue };
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let mut item = o.clone();
        if let Some(m) = item.as_object_mut() {
            // A real API server leaves these out of list items.
            m.remove("apiVersion");
            m.remove("kind");
        }
        if !CLUSTER_SCOPED.contains(&kind) && item["metadata"]["namespace"].is_null() {
            item["metadata"]["namespace"] = json!("default");
        }
        by_gv.entry((group.to_owned(), version.to_owned())).or_default().entry(kind.to_owned()).or_default().push(item);
    }
    let plural = |kind: &str| {
        let k = kind.to_lowercase();
        // A vowel before the `y` keeps it, as the API server's own names do (gateways, policies).
        match k.strip_suffix('y').filter(|stem| !stem.ends_with(['a', 'e', 'i', 'o', 'u'])) {
            Some(stem) => format!("{stem}ies"),
            None if k.ends_with('s') => format!("{k}es"),
            None => format!("{k}s"),
        }
    };
    let mut r = Routes::new();
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for ((group, version), kinds) in &by_gv {
        let gv = if group.is_empty() { version.clone() } else { format!("{group}/{version}") };
        let base = if group.is_empty() { format!("/api/{version}") } else { format!("/apis/{gv}") };
        let resources: Vec<Value> =
            kinds.keys().map(|k| resource(&plural(k), k, !CLUSTER_SCOPED.contains(&k.as_str()))).collect();
        r.insert(base.clone(), (200, json!({"kind": "APIResourceList", "groupVersion": gv, "resources": resources})));
        for (kind, items) in kinds {
            r.insert(format!("{base}/{}", plural(kind)), list(&gv, kind, items.clone()));
        }
        if !group.is_empty() {
            groups.entry(group.clone()).or_default().push(version.clone());
        }
    }
    r.insert(
        "/api".into(),
        (200, json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []})),
    );
    r.entry("/api/v1".into())
        .or_insert_with(|| (200, json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": []})));
    let groups: Vec<Value> = groups
        .iter()
        .map(|(name, versions)| {
            json!({"name": name, "versions": versions.iter().map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v})).collect::<Vec<_>>(),
                   "preferredVersion": {"groupVersion": format!("{name}/{}", versions[0]), "version": versions[0]}})
        })
        .collect();
    r.insert("/apis".into(), (200, json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})));
    r
}

/// A cluster with problems of its own, for the audit (`status --cluster` with no files): the
/// platform's Gateway, a route `checkout` with a rule `pay`, and
/// - two BackendTrafficPolicies on the same Gateway, whose controller reports both Accepted:
///   Envoy Gateway keeps the older (`edge-defaults`), so `edge-timeouts` is Conflicted;
/// - a SecurityPolicy on `checkout#pay` changed twice since its controller last wrote its
///   status (`generation` 3, `observedGeneration` 2): a stale status;
/// - a route `orders` whose parentRef names a Gateway `egde` that does not exist.
pub fn audit_objects() -> Vec<Value> {
    let gw = "gateway.networking.k8s.io";
    let eg = "gateway.envoyproxy.io";
    let controller = "gateway.envoyproxy.io/gatewayclass-controller";
    let accepted = |ancestor: Value, observed: i64| {
        json!({"ancestors": [{"ancestorRef": ancestor, "controllerName": controller,
            "conditions": [{"type": "Accepted", "status": "True", "reason": "Accepted", "observedGeneration": observed}]}]})
    };
    let edge = json!({"group": gw, "kind": "Gateway", "name": "edge", "namespace": "infra"});
    vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "infra"}}),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "labels": {"edge-access": "true"}}}),
        json!({"apiVersion": format!("{gw}/v1"), "kind": "GatewayClass", "metadata": {"name": "eg"},
               "spec": {"controllerName": controller}}),
        json!({"apiVersion": format!("{gw}/v1"), "kind": "Gateway",
               "metadata": {"name": "edge", "namespace": "infra", "creationTimestamp": "2025-01-01T00:00:00Z"},
               "spec": {"gatewayClassName": "eg", "listeners": [{"name": "https", "port": 443, "protocol": "HTTPS",
                 "allowedRoutes": {"namespaces": {"from": "Selector", "selector": {"matchLabels": {"edge-access": "true"}}}}}]}}),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "checkout", "namespace": "shop"},
               "spec": {"ports": [{"name": "http", "port": 8080}]}}),
        json!({"apiVersion": format!("{gw}/v1"), "kind": "HTTPRoute", "metadata": {"name": "checkout", "namespace": "shop"},
               "spec": {"parentRefs": [{"name": "edge", "namespace": "infra", "sectionName": "https"}],
                        "rules": [{"name": "pay", "backendRefs": [{"name": "checkout", "port": 8080}]}]}}),
        json!({"apiVersion": format!("{gw}/v1"), "kind": "HTTPRoute", "metadata": {"name": "orders", "namespace": "shop"},
               "spec": {"parentRefs": [{"name": "egde", "namespace": "infra"}],
                        "rules": [{"backendRefs": [{"name": "checkout", "port": 8080}]}]}}),
        json!({"apiVersion": format!("{eg}/v1alpha1"), "kind": "BackendTrafficPolicy",
               "metadata": {"name": "edge-defaults", "namespace": "infra", "generation": 1, "creationTimestamp": "2025-01-02T00:00:00Z"},
               "spec": {"targetRefs": [{"group": gw, "kind": "Gateway", "name": "edge"}], "timeout": {"http": {"requestTimeout": "15s"}}},
               "status": accepted(edge.clone(), 1)}),
        json!({"apiVersion": format!("{eg}/v1alpha1"), "kind": "BackendTrafficPolicy",
               "metadata": {"name": "edge-timeouts", "namespace": "infra", "generation": 1, "creationTimestamp": "2025-02-01T00:00:00Z"},
               "spec": {"targetRefs": [{"group": gw, "kind": "Gateway", "name": "edge"}], "timeout": {"http": {"requestTimeout": "5s"}}},
               "status": accepted(edge.clone(), 1)}),
        json!({"apiVersion": format!("{eg}/v1alpha1"), "kind": "SecurityPolicy",
               "metadata": {"name": "checkout-cors", "namespace": "shop", "generation": 3, "creationTimestamp": "2025-03-01T00:00:00Z"},
               "spec": {"targetRefs": [{"group": gw, "kind": "HTTPRoute", "name": "checkout", "sectionName": "pay"}],
                        "cors": {"allowOrigins": ["https://shop.example"]}},
               "status": {"ancestors": [{"ancestorRef": edge, "controllerName": controller,
                 "conditions": [{"type": "Accepted", "status": "False", "reason": "Invalid",
                   "message": "the CORS origin is malformed", "observedGeneration": 2}]}]}}),
    ]
}
