//! The `mixed` profile: a platform repo with shared Gateways and many teams.
//!
//! Layout:
//! ```text
//! infra/gateways.yaml                 Namespace infra, GatewayClass synth, Gateways gw-00..
//! infra/policies.yaml                 platform policies on the Gateways and their listeners
//! teams/<area>/<namespace>/NN-<app>.yaml  a team's Namespace, Services, routes, policies
//! ```
//! Objects only refer to objects written before them. Truncating the stream at any point (to hit
//! the requested object count exactly) therefore never creates a dangling reference; only the
//! deliberate typos do.

use std::fmt::Write as _;
use std::io;

use super::{
    APP_WORDS, Config, Doc, GATEWAY_GROUP, Out, RULE_WORDS, Rng, TEAM_WORDS, line, pascal, target_ref_item,
    target_ref_single, timestamp, typo,
};

/// Chance of a typo in one ref name or sectionName, in permille.
const TYPO_PERMILLE: u32 = 10;
const INFRA: &str = "infra";
const DOMAIN: &str = "synth.example";
const AREAS: &[&str] = &["commerce", "logistics", "identity", "media", "finance", "growth", "support", "data"];
const INTERNAL_SERVICES: &[&str] = &["worker", "cache", "events"];
const EXTRA_PORTS: &[(&str, u16)] = &[("grpc", 9090), ("https", 8443), ("metrics", 9100), ("admin", 8081)];
/// creationTimestamps fall within this many seconds after 2024-01-01.
const TS_SPAN: usize = 600 * 86_400;

/// How often each policy kind is written on a route, in permille.
#[derive(Clone, Copy)]
pub(super) struct Rates {
    backend_traffic: u32,
    security: u32,
    rate_limit: u32,
    auth: u32,
    /// Of the apps that serve `https`.
    backend_tls: u32,
}

/// The `mixed` profile: 10-15 % of the objects are policies.
pub(super) const MIXED: Rates =
    Rates { backend_traffic: 130, security: 60, rate_limit: 100, auth: 35, backend_tls: 320 };

/// The `policies` profile: a policy of most kinds on most routes (about half the objects), as a
/// platform team writes one per route.
pub(super) const POLICIES: Rates =
    Rates { backend_traffic: 900, security: 700, rate_limit: 800, auth: 600, backend_tls: 800 };

pub(super) fn generate(cfg: &Config, rates: Rates, rng: &mut Rng, out: &mut Out) -> io::Result<()> {
    let mut budget = cfg.objects;
    let gateways = (cfg.objects / 2500).clamp(2, 16);

    let (topology, policies) = infra(rng, gateways);
    let take = topology.len().min(budget);
    budget -= take;
    if take > 0 {
        out.write_file(
            "infra/gateways.yaml",
            "Shared gateways, owned by the platform team.\nTeams attach routes from their own namespaces.",
            &topology[..take],
        )?;
    }
    let take = policies.len().min(budget);
    budget -= take;
    if take > 0 {
        out.write_file("infra/policies.yaml", "Platform-wide policies on the shared gateways.", &policies[..take])?;
    }

    let mut prev: Vec<SvcRef> = Vec::new();
    let mut t = 0;
    while budget > 0 {
        let team = team(t, rng, rates, gateways, &prev);
        let mut docs = team.docs;
        docs.truncate(budget);
        budget -= docs.len();
        let area = AREAS[t % AREAS.len()];
        let mut file_no = 1;
        let mut rest = &docs[..];
        while !rest.is_empty() {
            let size = rng.range(20, 50).min(rest.len());
            let (chunk, tail) = rest.split_at(size);
            let first = &chunk[0].0;
            let rel = format!("teams/{area}/{}/{file_no:02}-{first}.yaml", team.ns);
            let header = format!("{} ({} team), managed by GitOps.\nOwners: @{}-oncall", team.ns, area, team.ns);
            out.write_file_refs(&rel, &header, chunk.iter().map(|(_, d)| d))?;
            rest = tail;
            file_no += 1;
        }
        prev = team.services;
        t += 1;
    }
    Ok(())
}

/// A Service of a team that a later team may reference across namespaces.
struct SvcRef {
    ns: String,
    name: String,
}

struct Team {
    ns: String,
    /// (name of the app, document), in write order.
    docs: Vec<(String, Doc)>,
    services: Vec<SvcRef>,
}

/// Picks a possibly misspelt version of `name`.
fn maybe_typo(rng: &mut Rng, name: &str, mistakes: &mut u32) -> String {
    if rng.chance(TYPO_PERMILLE) {
        *mistakes += 1;
        typo(rng, name)
    } else {
        name.to_owned()
    }
}

fn gateway_name(i: usize) -> String {
    format!("gw-{i:02}")
}

fn infra(rng: &mut Rng, gateways: usize) -> (Vec<Doc>, Vec<Doc>) {
    let mut topo = Vec::new();
    let mut s = String::new();
    line!(s, "apiVersion: v1");
    line!(s, "kind: Namespace");
    line!(s, "metadata:");
    line!(s, "  name: {INFRA}");
    line!(s, "  labels:");
    line!(s, "    team: platform");
    line!(s, "    kubernetes.io/metadata.name: {INFRA}");
    topo.push(Doc::object(s));

    let mut s = String::new();
    line!(s, "apiVersion: {GATEWAY_GROUP}/v1");
    line!(s, "kind: GatewayClass");
    line!(s, "metadata:");
    line!(s, "  name: synth");
    line!(s, "spec:");
    line!(s, "  controllerName: gateway.envoyproxy.io/gatewayclass-controller");
    line!(s, "  description: Envoy Gateway, shared by all teams");
    topo.push(Doc::object(s));

    for g in 0..gateways {
        topo.push(Doc::object(gateway(&gateway_name(g))));
    }

    let mut pols = Vec::new();
    for g in 0..gateways {
        let gw = gateway_name(g);
        // ClientTrafficPolicy on the https listener.
        let mut s = header("gateway.envoyproxy.io/v1alpha1", "ClientTrafficPolicy", &format!("{gw}-client"), INFRA);
        line!(s, "spec:");
        line!(s, "  targetRefs:");
        target_ref_item(&mut s, 4, GATEWAY_GROUP, "Gateway", &gw, Some("https"));
        line!(s, "  tls:");
        line!(s, "    minVersion: \"1.2\"");
        line!(s, "  clientIPDetection:");
        line!(s, "    xForwardedFor:");
        line!(s, "      numTrustedHops: 1");
        line!(s, "  timeout:");
        line!(s, "    http:");
        line!(s, "      requestReceivedTimeout: {}s", rng.range(10, 60));
        pols.push(Doc::policy(s));

        // BackendTrafficPolicy defaults for the whole Gateway.
        let mut s = header("gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy", &format!("{gw}-defaults"), INFRA);
        line!(s, "spec:");
        line!(s, "  targetRefs:");
        target_ref_item(&mut s, 4, GATEWAY_GROUP, "Gateway", &gw, None);
        line!(s, "  timeout:");
        line!(s, "    tcp:");
        line!(s, "      connectTimeout: 3s");
        line!(s, "    http:");
        line!(s, "      requestTimeout: {}s", rng.range(10, 30));
        line!(s, "  retry:");
        line!(s, "    numRetries: 2");
        line!(s, "    retryOn:");
        line!(s, "      triggers: [connect-failure, retriable-status-codes]");
        line!(s, "      httpStatusCodes: [502, 503]");
        pols.push(Doc::policy(s));

        // Kuadrant overrides: a per-Gateway cap merged into every route's limits.
        let mut s = header_ts("kuadrant.io/v1", "RateLimitPolicy", &format!("{gw}-cap"), INFRA, rng);
        line!(s, "spec:");
        target_ref_single(&mut s, GATEWAY_GROUP, "Gateway", &gw, None);
        line!(s, "  overrides:");
        line!(s, "    strategy: merge");
        line!(s, "    limits:");
        line!(s, "      gateway-cap:");
        line!(s, "        rates:");
        line!(s, "          - limit: {}", rng.range(5, 20) * 1000);
        line!(s, "            window: 1s");
        pols.push(Doc::policy(s));

        // Kuadrant default authentication, replaced by a team's own AuthPolicy.
        let mut s = header_ts("kuadrant.io/v1", "AuthPolicy", &format!("{gw}-auth"), INFRA, rng);
        line!(s, "spec:");
        target_ref_single(&mut s, GATEWAY_GROUP, "Gateway", &gw, None);
        line!(s, "  defaults:");
        line!(s, "    strategy: atomic");
        line!(s, "    rules:");
        line!(s, "      authentication:");
        line!(s, "        sso:");
        line!(s, "          jwt:");
        line!(s, "            issuerUrl: https://sso.{DOMAIN}/realms/synth");
        pols.push(Doc::policy(s));

        // Only known partner networks on the partner listener.
        let mut s =
            header("gateway.envoyproxy.io/v1alpha1", "SecurityPolicy", &format!("{gw}-partner-allowlist"), INFRA);
        line!(s, "spec:");
        line!(s, "  targetRefs:");
        target_ref_item(&mut s, 4, GATEWAY_GROUP, "Gateway", &gw, Some("partner"));
        line!(s, "  authorization:");
        line!(s, "    defaultAction: Deny");
        line!(s, "    rules:");
        line!(s, "      - name: partner-networks");
        line!(s, "        action: Allow");
        line!(s, "        principal:");
        line!(s, "          clientCIDRs: [203.0.113.0/24, 198.51.100.0/24]");
        pols.push(Doc::policy(s));
    }
    (topo, pols)
}

fn gateway(name: &str) -> String {
    let mut s = String::new();
    line!(s, "apiVersion: {GATEWAY_GROUP}/v1");
    line!(s, "kind: Gateway");
    line!(s, "metadata:");
    line!(s, "  name: {name}");
    line!(s, "  namespace: {INFRA}");
    line!(s, "spec:");
    line!(s, "  gatewayClassName: synth");
    line!(s, "  listeners:");
    line!(s, "    - name: http");
    line!(s, "      protocol: HTTP");
    line!(s, "      port: 80");
    line!(s, "      hostname: \"*.{DOMAIN}\"");
    line!(s, "      allowedRoutes:");
    line!(s, "        namespaces:");
    line!(s, "          from: All");
    line!(s, "    - name: https");
    line!(s, "      protocol: HTTPS");
    line!(s, "      port: 443");
    line!(s, "      hostname: \"*.{DOMAIN}\"");
    line!(s, "      tls:");
    line!(s, "        mode: Terminate");
    line!(s, "        certificateRefs:");
    line!(s, "          - kind: Secret");
    line!(s, "            name: wildcard-{}", DOMAIN.replace('.', "-"));
    line!(s, "      allowedRoutes:");
    line!(s, "        namespaces:");
    line!(s, "          from: All");
    line!(s, "    - name: grpc");
    line!(s, "      protocol: HTTP");
    line!(s, "      port: 9090");
    line!(s, "      allowedRoutes:");
    line!(s, "        namespaces:");
    line!(s, "          from: All");
    line!(s, "    - name: partner");
    line!(s, "      protocol: HTTPS");
    line!(s, "      port: 8443");
    line!(s, "      hostname: partners.{DOMAIN}");
    line!(s, "      tls:");
    line!(s, "        mode: Terminate");
    line!(s, "        certificateRefs:");
    line!(s, "          - kind: Secret");
    line!(s, "            name: partners-{}", DOMAIN.replace('.', "-"));
    line!(s, "      allowedRoutes:");
    line!(s, "        namespaces:");
    line!(s, "          from: Selector");
    line!(s, "          selector:");
    line!(s, "            matchLabels:");
    line!(s, "              synth.policylens.dev/partner: \"true\"");
    line!(s, "        kinds:");
    line!(s, "          - kind: HTTPRoute");
    s
}

/// `apiVersion`, `kind` and `metadata` of a namespaced object.
fn header(api_version: &str, kind: &str, name: &str, ns: &str) -> String {
    let mut s = String::with_capacity(640);
    line!(s, "apiVersion: {api_version}");
    line!(s, "kind: {kind}");
    line!(s, "metadata:");
    line!(s, "  name: {name}");
    line!(s, "  namespace: {ns}");
    s
}

/// [`header`] with a `creationTimestamp` (Kuadrant policies order by it within a level).
fn header_ts(api_version: &str, kind: &str, name: &str, ns: &str, rng: &mut Rng) -> String {
    let mut s = header(api_version, kind, name, ns);
    line!(s, "  creationTimestamp: \"{}\"", timestamp(rng.below(TS_SPAN) as u64));
    s
}

fn app_labels(s: &mut String, app: &str) {
    line!(s, "  labels:");
    line!(s, "    app.kubernetes.io/name: {app}");
}

fn team(t: usize, rng: &mut Rng, rates: Rates, gateways: usize, prev: &[SvcRef]) -> Team {
    let ns = format!("t{t:04}-{}", TEAM_WORDS[t % TEAM_WORDS.len()]);
    let partner = rng.chance(150);
    let mut docs: Vec<(String, Doc)> = Vec::new();

    let mut s = String::new();
    line!(s, "apiVersion: v1");
    line!(s, "kind: Namespace");
    line!(s, "metadata:");
    line!(s, "  name: {ns}");
    line!(s, "  labels:");
    line!(s, "    team: {}", TEAM_WORDS[t % TEAM_WORDS.len()]);
    line!(s, "    kubernetes.io/metadata.name: {ns}");
    if partner {
        line!(s, "    synth.policylens.dev/partner: \"true\"");
    }
    docs.push(("namespace".to_owned(), Doc::object(s)));

    let size = rng.range(25, 110);
    let offset = rng.below(APP_WORDS.len());
    let mut granted: Vec<(String, String)> = Vec::new();
    let mut services = Vec::new();
    let mut i = 0;
    while docs.len() < size {
        let w = APP_WORDS[(offset + i) % APP_WORDS.len()];
        let app = if i < APP_WORDS.len() { w.to_owned() } else { format!("{w}-{}", i / APP_WORDS.len() + 1) };
        i += 1;
        let mut ctx = AppCtx { rng, rates, ns: &ns, app: &app, gateways, partner, prev, granted: &mut granted };
        for doc in ctx.app_docs(&mut services) {
            docs.push((app.clone(), doc));
        }
    }
    Team { ns, docs, services }
}

struct AppCtx<'a> {
    rng: &'a mut Rng,
    rates: Rates,
    ns: &'a str,
    app: &'a str,
    gateways: usize,
    partner: bool,
    prev: &'a [SvcRef],
    granted: &'a mut Vec<(String, String)>,
}

struct Backend {
    name: String,
    ns: Option<String>,
    port: u16,
    weight: Option<u32>,
}

impl AppCtx<'_> {
    fn app_docs(&mut self, services: &mut Vec<SvcRef>) -> Vec<Doc> {
        let rng = &mut *self.rng;
        let (ns, app) = (self.ns, self.app);
        let mut docs = Vec::new();

        // Services: `http` plus one or two of grpc/https/metrics/admin.
        let mut ports: Vec<(&str, u16)> = vec![("http", 8080)];
        let extras = rng.range(1, 2);
        while ports.len() < 1 + extras {
            let p = *rng.pick(EXTRA_PORTS);
            if !ports.contains(&p) {
                ports.push(p);
            }
        }
        let canary = rng.chance(200);
        docs.push(Doc::object(service(ns, app, app, "stable", &ports)));
        services.push(SvcRef { ns: ns.to_owned(), name: app.to_owned() });
        let canary_name = format!("{app}-canary");
        if canary {
            docs.push(Doc::object(service(ns, &canary_name, app, "canary", &ports)));
        }
        let has = |n: &str| ports.iter().any(|(p, _)| *p == n);
        // Internal-only companions (no route points at them).
        for companion in INTERNAL_SERVICES {
            if rng.chance(270) {
                let name = format!("{app}-{companion}");
                docs.push(Doc::object(service(ns, &name, &name, "stable", &[("http", 8080), ("metrics", 9100)])));
            }
        }

        // One route: GRPCRoute when the app speaks gRPC (sometimes), else HTTPRoute.
        let grpc = has("grpc") && rng.chance(400);
        let (kind, route) = if grpc { ("GRPCRoute", format!("{app}-grpc")) } else { ("HTTPRoute", app.to_owned()) };
        let nrules = match rng.below(20) {
            0..=8 => 2,
            9..=15 => 3,
            _ => 4,
        };
        let start = rng.below(RULE_WORDS.len());
        let rules: Vec<&str> = (0..nrules).map(|j| RULE_WORDS[(start + j) % RULE_WORDS.len()]).collect();

        // Now and then a cross-namespace backend of the previous team, with its ReferenceGrant
        // (missing once in a while: a deliberate `backend-not-permitted`).
        let mut upstream: Option<(String, String, bool)> = None;
        if !grpc && !self.prev.is_empty() && rng.chance(30) {
            let target = &self.prev[rng.below(self.prev.len())];
            let key = (target.ns.clone(), target.name.clone());
            let already = self.granted.contains(&key);
            let missing = !already && rng.chance(100);
            if !already && !missing {
                docs.push(Doc::object(reference_grant(&target.ns, ns, &target.name)));
                self.granted.push(key);
            }
            upstream = Some((target.ns.clone(), target.name.clone(), missing));
        }

        let mut mistakes = 0;
        let mut s = header(&format!("{GATEWAY_GROUP}/v1"), kind, &route, ns);
        line!(s, "spec:");
        line!(s, "  parentRefs:");
        let g1 = rng.below(self.gateways);
        let mut gws = vec![g1];
        if rng.chance(250) {
            gws.push((g1 + 1 + rng.below(self.gateways - 1)) % self.gateways);
        }
        let use_partner = !grpc && self.partner && rng.chance(300);
        for &g in &gws {
            let sections: &[Option<&str>] = if grpc {
                &[Some("grpc")]
            } else {
                match rng.below(10) {
                    0..=3 => &[None],
                    4..=6 => &[Some("https")],
                    _ => &[Some("http"), Some("https")],
                }
            };
            for sec in sections {
                parent_ref(&mut s, rng, &gateway_name(g), *sec, &mut mistakes);
            }
        }
        if use_partner {
            parent_ref(&mut s, rng, &gateway_name(g1), Some("partner"), &mut mistakes);
        }
        if !grpc {
            line!(s, "  hostnames:");
            line!(s, "    - {app}-{ns}.{DOMAIN}");
            if use_partner {
                line!(s, "    - partners.{DOMAIN}");
            }
        }
        line!(s, "  rules:");
        let port = if grpc { 9090 } else { 8080 };
        // Some teams write matches in flow style, as many hand-written manifests do.
        let flow = rng.chance(500);
        let prefix = if use_partner { format!("/{ns}/{app}") } else { format!("/{app}") };
        for (j, rule) in rules.iter().enumerate() {
            line!(s, "    - name: {rule}");
            line!(s, "      matches:");
            if grpc {
                line!(s, "        - method:");
                line!(s, "            service: {}.v1.{}Service", app.replace('-', "_"), pascal(app));
                line!(s, "            method: {}", pascal(rule));
            } else if flow {
                line!(s, "        - path: {{type: PathPrefix, value: {prefix}/{rule}}}");
            } else {
                line!(s, "        - path:");
                line!(s, "            type: PathPrefix");
                line!(s, "            value: {prefix}/{rule}");
            }
            if !grpc {
                if j == 0 && rng.chance(300) {
                    line!(s, "      filters:");
                    line!(s, "        - type: RequestHeaderModifier");
                    line!(s, "          requestHeaderModifier:");
                    line!(s, "            set:");
                    line!(s, "              - name: x-team");
                    line!(s, "                value: {ns}");
                }
                if rng.chance(200) {
                    line!(s, "      timeouts:");
                    line!(s, "        request: {}s", rng.range(5, 60));
                }
            }
            let mut backends = vec![Backend { name: app.to_owned(), ns: None, port, weight: None }];
            if canary {
                backends[0].weight = Some(90);
                backends.push(Backend { name: canary_name.clone(), ns: None, port, weight: Some(10) });
            }
            backend_refs(&mut s, rng, &backends, &mut mistakes);
        }
        if let Some((uns, uname, missing)) = &upstream {
            line!(s, "    - name: upstream");
            line!(s, "      matches:");
            line!(s, "        - path:");
            line!(s, "            type: PathPrefix");
            line!(s, "            value: {prefix}/upstream");
            let b = Backend { name: uname.clone(), ns: Some(uns.clone()), port: 8080, weight: None };
            backend_refs(&mut s, rng, &[b], &mut mistakes);
            if *missing {
                mistakes += 1;
            }
        }
        docs.push(Doc::object(s).with_mistakes(mistakes));

        // Policies on the route (sometimes on one of its rules).
        let mut all_rules = rules.clone();
        if upstream.is_some() {
            all_rules.push("upstream");
        }
        let section = |rng: &mut Rng| {
            if rng.chance(350) { Some(*rng.pick(&all_rules)) } else { None }
        };
        let rates = self.rates;
        if rng.chance(rates.backend_traffic) {
            let sec = section(rng);
            docs.push(backend_traffic_policy(rng, ns, app, kind, &route, sec));
        }
        if rng.chance(rates.security) {
            let sec = section(rng);
            docs.push(security_policy(rng, ns, app, kind, &route, sec));
        }
        if rng.chance(rates.rate_limit) {
            let sec = section(rng);
            docs.push(rate_limit_policy(rng, ns, app, kind, &route, sec));
        }
        if rng.chance(rates.auth) {
            docs.push(auth_policy(rng, ns, app, kind, &route));
        }
        if has("https") && rng.chance(rates.backend_tls) {
            let mut targets = vec![app.to_owned()];
            if canary {
                targets.push(canary_name.clone());
            }
            docs.push(backend_tls_policy(rng, ns, app, &targets));
        }
        docs
    }
}

fn parent_ref(s: &mut String, rng: &mut Rng, gw: &str, section: Option<&str>, mistakes: &mut u32) {
    line!(s, "    - name: {}", maybe_typo(rng, gw, mistakes));
    line!(s, "      namespace: {INFRA}");
    if let Some(sec) = section {
        line!(s, "      sectionName: {}", maybe_typo(rng, sec, mistakes));
    }
}

fn backend_refs(s: &mut String, rng: &mut Rng, backends: &[Backend], mistakes: &mut u32) {
    line!(s, "      backendRefs:");
    for b in backends {
        line!(s, "        - name: {}", maybe_typo(rng, &b.name, mistakes));
        if let Some(ns) = &b.ns {
            line!(s, "          namespace: {ns}");
        }
        line!(s, "          port: {}", b.port);
        if let Some(w) = b.weight {
            line!(s, "          weight: {w}");
        }
    }
}

fn service(ns: &str, name: &str, app: &str, track: &str, ports: &[(&str, u16)]) -> String {
    let mut s = header("v1", "Service", name, ns);
    app_labels(&mut s, app);
    line!(s, "spec:");
    line!(s, "  selector:");
    line!(s, "    app.kubernetes.io/name: {app}");
    line!(s, "    track: {track}");
    line!(s, "  ports:");
    for (pname, port) in ports {
        line!(s, "    - name: {pname}");
        line!(s, "      port: {port}");
        line!(s, "      targetPort: {pname}");
        match *pname {
            "grpc" => line!(s, "      appProtocol: kubernetes.io/h2c"),
            "https" => line!(s, "      appProtocol: https"),
            _ => {}
        }
    }
    s
}

fn reference_grant(target_ns: &str, from_ns: &str, svc: &str) -> String {
    let mut s =
        header(&format!("{GATEWAY_GROUP}/v1beta1"), "ReferenceGrant", &format!("allow-{from_ns}-to-{svc}"), target_ns);
    line!(s, "spec:");
    line!(s, "  from:");
    line!(s, "    - group: {GATEWAY_GROUP}");
    line!(s, "      kind: HTTPRoute");
    line!(s, "      namespace: {from_ns}");
    line!(s, "  to:");
    line!(s, "    - group: \"\"");
    line!(s, "      kind: Service");
    line!(s, "      name: {svc}");
    s
}

/// The name and sectionName of a ref to a route, each possibly misspelt.
fn route_target(rng: &mut Rng, route: &str, section: Option<&str>, mistakes: &mut u32) -> (String, Option<String>) {
    let name = maybe_typo(rng, route, mistakes);
    let sec = section.map(|sec| maybe_typo(rng, sec, mistakes));
    (name, sec)
}

fn backend_traffic_policy(rng: &mut Rng, ns: &str, app: &str, kind: &str, route: &str, section: Option<&str>) -> Doc {
    let mut mistakes = 0;
    let name = match section {
        Some(sec) => format!("{route}-{sec}-traffic"),
        None => format!("{route}-traffic"),
    };
    let mut s = header("gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy", &name, ns);
    app_labels(&mut s, app);
    line!(s, "spec:");
    line!(s, "  targetRefs:");
    let (tname, tsec) = route_target(rng, route, section, &mut mistakes);
    target_ref_item(&mut s, 4, GATEWAY_GROUP, kind, &tname, tsec.as_deref());
    line!(s, "  timeout:");
    line!(s, "    http:");
    line!(s, "      requestTimeout: {}s", rng.range(2, 60));
    line!(s, "  retry:");
    line!(s, "    numRetries: {}", rng.range(0, 4));
    line!(s, "    perRetry:");
    line!(s, "      backOff:");
    line!(s, "        baseInterval: 100ms");
    line!(s, "        maxInterval: 2s");
    if rng.chance(400) {
        line!(s, "  circuitBreaker:");
        line!(s, "    maxConnections: {}", rng.range(1, 8) * 256);
        line!(s, "    maxPendingRequests: {}", rng.range(1, 8) * 128);
    }
    Doc::policy(s).with_mistakes(mistakes)
}

fn security_policy(rng: &mut Rng, ns: &str, app: &str, kind: &str, route: &str, section: Option<&str>) -> Doc {
    let mut mistakes = 0;
    let mut s = header("gateway.envoyproxy.io/v1alpha1", "SecurityPolicy", &format!("{route}-security"), ns);
    app_labels(&mut s, app);
    line!(s, "spec:");
    line!(s, "  targetRefs:");
    let (tname, tsec) = route_target(rng, route, section, &mut mistakes);
    target_ref_item(&mut s, 4, GATEWAY_GROUP, kind, &tname, tsec.as_deref());
    if rng.chance(500) {
        line!(s, "  cors:");
        line!(s, "    allowOrigins:");
        line!(s, "      - \"https://*.{DOMAIN}\"");
        line!(s, "    allowMethods: [GET, POST, PUT]");
        line!(s, "    allowHeaders: [authorization, content-type]");
        line!(s, "    maxAge: 10m");
    } else {
        line!(s, "  jwt:");
        line!(s, "    providers:");
        line!(s, "      - name: sso");
        line!(s, "        issuer: https://sso.{DOMAIN}/realms/synth");
        line!(s, "        remoteJWKS:");
        line!(s, "          uri: https://sso.{DOMAIN}/realms/synth/protocol/openid-connect/certs");
    }
    Doc::policy(s).with_mistakes(mistakes)
}

fn rate_limit_policy(rng: &mut Rng, ns: &str, app: &str, kind: &str, route: &str, section: Option<&str>) -> Doc {
    let mut mistakes = 0;
    let name = match section {
        Some(sec) => format!("{route}-{sec}-limits"),
        None => format!("{route}-limits"),
    };
    let mut s = header_ts("kuadrant.io/v1", "RateLimitPolicy", &name, ns, rng);
    app_labels(&mut s, app);
    line!(s, "spec:");
    let (tname, tsec) = route_target(rng, route, section, &mut mistakes);
    target_ref_single(&mut s, GATEWAY_GROUP, kind, &tname, tsec.as_deref());
    // Half the teams wrap their limits in `defaults` (atomic or merge); the rest use the
    // implicit-defaults form.
    let pad = if rng.chance(500) {
        line!(s, "  defaults:");
        line!(s, "    strategy: {}", if rng.chance(500) { "merge" } else { "atomic" });
        "  "
    } else {
        ""
    };
    line!(s, "  {pad}limits:");
    line!(s, "  {pad}  {app}-per-user:");
    line!(s, "  {pad}    rates:");
    line!(s, "  {pad}      - limit: {}", rng.range(1, 50) * 10);
    line!(s, "  {pad}        window: 1m");
    line!(s, "  {pad}    counters:");
    line!(s, "  {pad}      - expression: auth.identity.sub");
    Doc::policy(s).with_mistakes(mistakes)
}

fn auth_policy(rng: &mut Rng, ns: &str, app: &str, kind: &str, route: &str) -> Doc {
    let mut mistakes = 0;
    let mut s = header_ts("kuadrant.io/v1", "AuthPolicy", &format!("{route}-auth"), ns, rng);
    app_labels(&mut s, app);
    line!(s, "spec:");
    let (tname, _) = route_target(rng, route, None, &mut mistakes);
    target_ref_single(&mut s, GATEWAY_GROUP, kind, &tname, None);
    line!(s, "  rules:");
    line!(s, "    authentication:");
    line!(s, "      api-key:");
    line!(s, "        apiKey:");
    line!(s, "          selector:");
    line!(s, "            matchLabels:");
    line!(s, "              app: {app}");
    line!(s, "        credentials:");
    line!(s, "          authorizationHeader:");
    line!(s, "            prefix: APIKEY");
    Doc::policy(s).with_mistakes(mistakes)
}

fn backend_tls_policy(rng: &mut Rng, ns: &str, app: &str, services: &[String]) -> Doc {
    let mut mistakes = 0;
    let mut s = header(&format!("{GATEWAY_GROUP}/v1"), "BackendTLSPolicy", &format!("{app}-tls"), ns);
    app_labels(&mut s, app);
    line!(s, "spec:");
    line!(s, "  targetRefs:");
    for svc in services {
        let name = maybe_typo(rng, svc, &mut mistakes);
        let sec = maybe_typo(rng, "https", &mut mistakes);
        target_ref_item(&mut s, 4, "", "Service", &name, Some(&sec));
    }
    line!(s, "  validation:");
    line!(s, "    caCertificateRefs:");
    line!(s, "      - group: \"\"");
    line!(s, "        kind: ConfigMap");
    line!(s, "        name: {ns}-ca");
    line!(s, "    hostname: {app}.{ns}.svc.cluster.local");
    Doc::policy(s).with_mistakes(mistakes)
}
