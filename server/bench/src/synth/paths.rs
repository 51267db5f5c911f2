//! The `paths` profile: many Gateways × many routes × a few shared Services, with policies at
//! every level, to make effective-policy path enumeration expensive.
//!
//! Every route attaches (no `sectionName`) to every listener of `parent_refs` Gateways. It has
//! `rules` rules, each with `backends` backendRefs into the shared Services. That gives
//! routes × parent_refs × listeners × rules × backends paths from a Gateway to a Service port.
//! Everything lives in the namespace `paths` and every ref resolves (no deliberate mistakes).
//! The custom Inherited kind `StressPolicy.bench.policylens.dev`, declared in the generated
//! `.policylens.yaml`, may target every level: Namespace, Gateway (+listener), HTTPRoute
//! (+rule), Service (+port).

use std::fmt::Write as _;
use std::io;

use super::{Doc, GATEWAY_GROUP, Out, PathsShape, RULE_WORDS, Rng, line, target_ref_item, timestamp};

const NS: &str = "paths";
const STRESS_GROUP: &str = "bench.policylens.dev";
const PER_FILE: usize = 40;
const TS_SPAN: usize = 400 * 86_400;

const CONFIG: &str = "\
# policylens workspace config for the `paths` stress workspace (written by policylens-synth).
defaultNamespace: paths
policyKinds:
  - group: bench.policylens.dev
    kind: StressPolicy
    class: Inherited
    targets:
      - {group: \"\", kind: Namespace}
      - {group: gateway.networking.k8s.io, kind: Gateway, sectionName: true}
      - {group: gateway.networking.k8s.io, kind: HTTPRoute, sectionName: true}
      - {group: \"\", kind: Service, sectionName: true}
    effectiveTarget: {group: \"\", kind: Service}
    crossNamespace: false
    strategies: [AtomicDefaults, AtomicOverrides, PatchDefaults, PatchOverrides]
";

fn listener_name(l: usize) -> String {
    match l {
        0 => "http".to_owned(),
        1 => "https".to_owned(),
        _ => format!("l{l}"),
    }
}

fn rule_name(j: usize) -> String {
    if j < RULE_WORDS.len() { RULE_WORDS[j].to_owned() } else { format!("r{j}") }
}

pub(super) fn generate(shape: &PathsShape, rng: &mut Rng, out: &mut Out) -> io::Result<()> {
    let g_n = shape.gateways.max(1);
    let l_n = shape.listeners.max(1);
    let s_n = shape.services.max(1);
    let r_n = shape.routes;
    let k = shape.parent_refs.clamp(1, 32).min(g_n);
    let u = shape.rules.max(1);
    let b = shape.backends.clamp(1, s_n);
    let gw = |i: usize| format!("gw-{i:03}");
    let svc = |i: usize| format!("svc-{i:02}");
    let route = |i: usize| format!("route-{i:04}");

    out.write_raw(".policylens.yaml", CONFIG)?;

    // Topology.
    let mut base = Vec::new();
    let mut s = String::new();
    line!(s, "apiVersion: v1");
    line!(s, "kind: Namespace");
    line!(s, "metadata:");
    line!(s, "  name: {NS}");
    base.push(Doc::object(s));
    let mut s = String::new();
    line!(s, "apiVersion: {GATEWAY_GROUP}/v1");
    line!(s, "kind: GatewayClass");
    line!(s, "metadata:");
    line!(s, "  name: {NS}");
    line!(s, "spec:");
    line!(s, "  controllerName: gateway.envoyproxy.io/gatewayclass-controller");
    base.push(Doc::object(s));
    for i in 0..s_n {
        let mut s = meta("v1", "Service", &svc(i));
        line!(s, "spec:");
        line!(s, "  selector:");
        line!(s, "    app: {}", svc(i));
        line!(s, "  ports:");
        line!(s, "    - name: http");
        line!(s, "      port: 8080");
        line!(s, "    - name: https");
        line!(s, "      port: 8443");
        base.push(Doc::object(s));
    }
    out.write_file("base.yaml", "Namespace, GatewayClass and the shared Services.", &base)?;

    let mut gateways = Vec::new();
    for i in 0..g_n {
        let mut s = meta(&format!("{GATEWAY_GROUP}/v1"), "Gateway", &gw(i));
        line!(s, "spec:");
        line!(s, "  gatewayClassName: {NS}");
        line!(s, "  listeners:");
        for l in 0..l_n {
            line!(s, "    - name: {}", listener_name(l));
            match l {
                0 => {
                    line!(s, "      protocol: HTTP");
                    line!(s, "      port: 80");
                }
                1 => {
                    line!(s, "      protocol: HTTPS");
                    line!(s, "      port: 443");
                    line!(s, "      tls:");
                    line!(s, "        certificateRefs:");
                    line!(s, "          - name: {}-cert", gw(i));
                }
                _ => {
                    line!(s, "      protocol: HTTP");
                    line!(s, "      port: {}", 8000 + l);
                }
            }
            line!(s, "      allowedRoutes:");
            line!(s, "        namespaces:");
            line!(s, "          from: Same");
        }
        gateways.push(Doc::object(s));
    }
    write_chunks(out, "gateways/gateways", "Gateways", &gateways)?;

    let mut routes = Vec::new();
    for i in 0..r_n {
        let mut s = meta(&format!("{GATEWAY_GROUP}/v1"), "HTTPRoute", &route(i));
        line!(s, "spec:");
        line!(s, "  parentRefs:");
        let start = (i * 7) % g_n;
        for j in 0..k {
            line!(s, "    - name: {}", gw((start + j) % g_n));
        }
        line!(s, "  rules:");
        for j in 0..u {
            line!(s, "    - name: {}", rule_name(j));
            line!(s, "      matches:");
            line!(s, "        - path:");
            line!(s, "            type: PathPrefix");
            line!(s, "            value: /{}/{}", route(i), rule_name(j));
            line!(s, "      backendRefs:");
            let first = (i * 3 + j * 5) % s_n;
            for x in 0..b {
                line!(s, "        - name: {}", svc((first + x) % s_n));
                line!(s, "          port: {}", if x % 2 == 0 { 8080 } else { 8443 });
            }
        }
        routes.push(Doc::object(s));
    }
    write_chunks(out, "routes/routes", "HTTPRoutes", &routes)?;

    // Policies, level by level.
    let ts = |rng: &mut Rng| timestamp(rng.below(TS_SPAN) as u64);
    let mut pols = Vec::new();
    pols.push(stress(&ts(rng), "ns-defaults", "", "Namespace", NS, None, "defaults", "merge", rng));
    for i in 0..g_n {
        pols.push(btp(&format!("{}-traffic", gw(i)), "Gateway", &gw(i), None, rng));
        if l_n >= 2 {
            pols.push(btp(&format!("{}-https-traffic", gw(i)), "Gateway", &gw(i), Some("https"), rng));
        }
        let (stanza, strategy) = if i % 5 == 0 { ("overrides", "atomic") } else { ("defaults", "merge") };
        pols.push(stress(
            &ts(rng),
            &format!("{}-stress", gw(i)),
            GATEWAY_GROUP,
            "Gateway",
            &gw(i),
            None,
            stanza,
            strategy,
            rng,
        ));
        if i % 3 == 0 {
            pols.push(stress(
                &ts(rng),
                &format!("{}-http-stress", gw(i)),
                GATEWAY_GROUP,
                "Gateway",
                &gw(i),
                Some("http"),
                "defaults",
                "atomic",
                rng,
            ));
        }
        pols.push(rlp(&ts(rng), &format!("{}-cap", gw(i)), "Gateway", &gw(i), "overrides", rng));
    }
    write_chunks(out, "policies/gateways", "Policies on Gateways and listeners", &pols)?;

    let mut pols = Vec::new();
    for i in 0..r_n {
        let r = route(i);
        pols.push(btp(&format!("{r}-traffic"), "HTTPRoute", &r, None, rng));
        pols.push(btp(&format!("{r}-first-traffic"), "HTTPRoute", &r, Some(&rule_name(0)), rng));
        pols.push(stress(
            &ts(rng),
            &format!("{r}-stress"),
            GATEWAY_GROUP,
            "HTTPRoute",
            &r,
            None,
            "defaults",
            "merge",
            rng,
        ));
        if i % 2 == 0 {
            let last = rule_name(u - 1);
            pols.push(stress(
                &ts(rng),
                &format!("{r}-last-stress"),
                GATEWAY_GROUP,
                "HTTPRoute",
                &r,
                Some(&last),
                "defaults",
                "merge",
                rng,
            ));
        }
        if i % 10 == 0 {
            // A second policy at the same level: ordering by creationTimestamp matters.
            pols.push(stress(
                &ts(rng),
                &format!("{r}-stress-b"),
                GATEWAY_GROUP,
                "HTTPRoute",
                &r,
                None,
                "defaults",
                "atomic",
                rng,
            ));
        }
        pols.push(rlp(&ts(rng), &format!("{r}-limits"), "HTTPRoute", &r, "defaults", rng));
    }
    write_chunks(out, "policies/routes", "Policies on routes and rules", &pols)?;

    let mut pols = Vec::new();
    for i in 0..s_n {
        let v = svc(i);
        pols.push(stress(&ts(rng), &format!("{v}-stress"), "", "Service", &v, None, "defaults", "merge", rng));
        pols.push(stress(
            &ts(rng),
            &format!("{v}-https-stress"),
            "",
            "Service",
            &v,
            Some("https"),
            "defaults",
            "merge",
            rng,
        ));
        let mut s = meta(&format!("{GATEWAY_GROUP}/v1"), "BackendTLSPolicy", &format!("{v}-tls"));
        line!(s, "spec:");
        line!(s, "  targetRefs:");
        target_ref_item(&mut s, 4, "", "Service", &v, Some("https"));
        line!(s, "  validation:");
        line!(s, "    wellKnownCACertificates: System");
        line!(s, "    hostname: {v}.{NS}.svc.cluster.local");
        pols.push(Doc::policy(s));
    }
    write_chunks(out, "policies/services", "Policies on Services and ports", &pols)?;

    out.summary.paths = (r_n * k * l_n * u * b) as u64;
    Ok(())
}

fn write_chunks(out: &mut Out, stem: &str, what: &str, docs: &[Doc]) -> io::Result<()> {
    for (n, chunk) in docs.chunks(PER_FILE).enumerate() {
        out.write_file(&format!("{stem}-{n:03}.yaml"), &format!("{what} (part {n})."), chunk)?;
    }
    Ok(())
}

fn meta(api_version: &str, kind: &str, name: &str) -> String {
    let mut s = String::with_capacity(512);
    line!(s, "apiVersion: {api_version}");
    line!(s, "kind: {kind}");
    line!(s, "metadata:");
    line!(s, "  name: {name}");
    line!(s, "  namespace: {NS}");
    s
}

fn btp(name: &str, kind: &str, target: &str, section: Option<&str>, rng: &mut Rng) -> Doc {
    let mut s = meta("gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy", name);
    line!(s, "spec:");
    line!(s, "  targetRefs:");
    target_ref_item(&mut s, 4, GATEWAY_GROUP, kind, target, section);
    line!(s, "  timeout:");
    line!(s, "    http:");
    line!(s, "      requestTimeout: {}s", rng.range(1, 60));
    line!(s, "  retry:");
    line!(s, "    numRetries: {}", rng.range(0, 5));
    Doc::policy(s)
}

fn rlp(ts: &str, name: &str, kind: &str, target: &str, stanza: &str, rng: &mut Rng) -> Doc {
    let mut s = meta("kuadrant.io/v1", "RateLimitPolicy", name);
    line!(s, "  creationTimestamp: \"{ts}\"");
    line!(s, "spec:");
    line!(s, "  targetRef:");
    line!(s, "    group: {GATEWAY_GROUP}");
    line!(s, "    kind: {kind}");
    line!(s, "    name: {target}");
    line!(s, "  {stanza}:");
    line!(s, "    strategy: merge");
    line!(s, "    limits:");
    line!(s, "      {name}:");
    line!(s, "        rates:");
    line!(s, "          - limit: {}", rng.range(1, 100) * 10);
    line!(s, "            window: 1m");
    Doc::policy(s)
}

#[allow(clippy::too_many_arguments)]
fn stress(
    ts: &str,
    name: &str,
    group: &str,
    kind: &str,
    target: &str,
    section: Option<&str>,
    stanza: &str,
    strategy: &str,
    rng: &mut Rng,
) -> Doc {
    let mut s = meta(&format!("{STRESS_GROUP}/v1alpha1"), "StressPolicy", name);
    line!(s, "  creationTimestamp: \"{ts}\"");
    line!(s, "spec:");
    line!(s, "  targetRefs:");
    target_ref_item(&mut s, 4, group, kind, target, section);
    line!(s, "  {stanza}:");
    line!(s, "    strategy: {strategy}");
    line!(s, "    color: {}", rng.pick(&["red", "green", "blue", "amber", "violet"]));
    line!(s, "    retries: {}", rng.range(0, 9));
    line!(s, "    headers:");
    line!(s, "      x-set-by: {name}");
    if rng.chance(500) {
        line!(s, "      x-level: {}", kind.to_ascii_lowercase());
    }
    Doc::policy(s)
}
