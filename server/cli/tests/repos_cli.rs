//! `policylens check` on repositories as they are (`fixtures/repos`, see its README): example
//! folders, a kustomize overlay, a Helm chart, a GitOps repository whose Gateways live in a
//! platform repository; files checked within their workspace, standard input, ignore
//! comments, config severities and exit codes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repo root")
}

/// Runs the binary in the repo root with `stdin`: (exit code, stdout, stderr).
fn run_with(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_policylens"))
        .args(args)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run policylens");
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(text.as_bytes()).expect("write stdin");
    }
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn run(args: &[&str]) -> (i32, String, String) {
    run_with(args, None)
}

/// Diagnostics of `check --format json` as `file:line:col severity[code] message`, 1-based.
fn findings(out: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(out).expect("json output");
    v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let s = &d["range"]["start"];
            format!(
                "{}:{}:{} {}[{}] {}",
                d["file"].as_str().unwrap_or(""),
                s["line"].as_u64().unwrap_or(0) + 1,
                s["character"].as_u64().unwrap_or(0) + 1,
                d["severity"].as_str().unwrap_or(""),
                d["code"].as_str().unwrap_or(""),
                d["message"].as_str().unwrap_or("")
            )
        })
        .collect()
}

fn summary(out: &str) -> Value {
    let mut v: Value = serde_json::from_str(out).expect("json output");
    v["summary"].as_object_mut().expect("summary").remove("elapsedMs");
    v["summary"].clone()
}

#[test]
fn monorepo_of_examples_overlays_and_a_chart_reports_only_true_findings() {
    let (code, out, err) = run(&["check", "--format", "json", "fixtures/repos/monorepo"]);
    assert_eq!(code, 1, "{err}");
    // Same-named Gateways, routes and policies in every example folder: no conflict, no
    // not-found, no duplicate. The kustomize base is applied by two overlays, each in its own
    // namespace: in staging its timeouts hold, in prod the overlay's retry policy on the same
    // rule wins (Envoy Gateway accepts one BackendTrafficPolicy per target). The chart's
    // policies live in the release's namespace, as its Service does; one names a port the
    // Service lacks.
    assert_eq!(
        findings(&out),
        [
            "fixtures/repos/monorepo/charts/shop/templates/policies.yaml:45:20 error[section-not-found] \
             Service/{{ .Release.Namespace }}/{{ include \"shop.fullname\" . }} has no port named `grpc` (ports: `https`)",
            "fixtures/repos/monorepo/kustomize/base/timeouts.yaml:10:13 warning[conflicted] \
             `BackendTrafficPolicy.gateway.envoyproxy.io/shop-prod/storefront-timeouts` conflicts with \
             `BackendTrafficPolicy.gateway.envoyproxy.io/shop-prod/storefront-retries` on \
             `HTTPRoute/shop-prod/storefront#pages` in kustomization kustomize/overlays/prod: \
             `BackendTrafficPolicy.gateway.envoyproxy.io/shop-prod/storefront-retries` comes first by namespace/name \
             (neither has a creationTimestamp; in a cluster the older one wins), so this policy is not applied there",
        ]
    );
    assert_eq!(
        summary(&out),
        serde_json::json!({"files": 20, "documents": 27, "objects": 25, "policies": 8, "suppressed": 0})
    );
    // Each overlay's instance of the base's policy has its own status.
    let (_, out, _) = run(&["status", "--format", "json", "fixtures/repos/monorepo"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let timeouts: Vec<(String, String)> = v["policies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["policy"].as_str().unwrap().ends_with("/storefront-timeouts"))
        .map(|p| (p["policy"].as_str().unwrap().to_owned(), p["accepted"]["reason"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(
        timeouts,
        [
            (
                "BackendTrafficPolicy.gateway.envoyproxy.io/shop-prod/storefront-timeouts".to_owned(),
                "Conflicted".to_owned()
            ),
            (
                "BackendTrafficPolicy.gateway.envoyproxy.io/shop-staging/storefront-timeouts".to_owned(),
                "Accepted".to_owned()
            ),
        ]
    );
}

#[test]
fn a_flat_folder_of_test_cases_is_a_case_per_file_over_a_shared_base() {
    // Two cases each put a ClientTrafficPolicy on the shared Gateway: never a conflict. Checking
    // the testdata folder alone resolves against the whole repository (the Gateway is in
    // base/), and reports only under the folder. The true findings stay; a target the test
    // creates itself is a note, its policy accepted with its effect unknown.
    let want = [
        "fixtures/repos/e2e/test/e2e/testdata/backend-tls.yaml:13:20 error[section-not-found] \
         Service/e2e-infra/infra-backend has no port named `https` (its only port, 8080, has no name; name it to target it)",
        "fixtures/repos/e2e/test/e2e/testdata/dangling.yaml:12:13 information[target-not-found] \
         HTTPRoute/e2e-infra/http-with-basic-auth does not exist (nothing this test or example can reach defines it: \
         it is left to the reader or the test harness)",
        "fixtures/repos/e2e/test/e2e/testdata/merge/policies.yaml:7:9 warning[overridden] nothing \
         `BackendTrafficPolicy.gateway.envoyproxy.io/e2e-infra/merged-route` sets is in effect: everything is superseded by \
         `BackendTrafficPolicy.gateway.envoyproxy.io/e2e-infra/merged-rule`",
    ];
    for path in ["fixtures/repos/e2e", "fixtures/repos/e2e/test/e2e/testdata"] {
        let (code, out, err) = run(&["check", "--format", "json", path]);
        assert_eq!(code, 1, "{err}");
        assert_eq!(findings(&out), want, "{path}");
    }
    // Both ClientTrafficPolicies are enforced on the Gateway: each in its own case.
    let (_, out, _) = run(&["status", "--format", "json", "fixtures/repos/e2e"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let ctps: Vec<(&str, &str)> = v["policies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["policy"].as_str().unwrap().starts_with("ClientTrafficPolicy"))
        .map(|p| (p["policy"].as_str().unwrap(), p["enforcement"].as_str().unwrap_or("-")))
        .collect();
    assert_eq!(
        ctps,
        [
            ("ClientTrafficPolicy.gateway.envoyproxy.io/e2e-infra/client-timeout", "Enforced"),
            ("ClientTrafficPolicy.gateway.envoyproxy.io/e2e-infra/preserve-case", "Enforced"),
        ]
    );
    let dangling = v["policies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["policy"] == "SecurityPolicy.gateway.envoyproxy.io/e2e-infra/basic-auth")
        .expect("the dangling policy");
    assert_eq!(
        (&dangling["accepted"], &dangling["enforcement"], &dangling["affects"], &dangling["unknown"]),
        (
            &serde_json::json!({"status": true, "reason": "Accepted"}),
            &serde_json::json!("Unknown"),
            &serde_json::json!([]),
            &serde_json::json!([{
                "ref": "HTTPRoute/e2e-infra/http-with-basic-auth",
                "reason": "LeftToTheReader",
                "message": "nothing this test or example can reach defines it: it is left to the reader or the test harness"
            }])
        )
    );
    // A route of one case, explained: its case's policy only, labelled by nothing (the route is
    // the case's own).
    let (_, out, _) =
        run(&["explain", "--format", "json", "fixtures/repos/e2e", "--target", "Gateway/e2e-infra/same-namespace"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let units: Vec<&str> =
        v["policies"][0]["contexts"].as_array().unwrap().iter().map(|c| c["unit"].as_str().unwrap_or("-")).collect();
    assert_eq!(
        units,
        ["case test/e2e/testdata/client-timeout.yaml", "case test/e2e/testdata/preserve-case.yaml"],
        "the shared Gateway is explained once per case that puts a policy on it"
    );
}

#[test]
fn placeholders_in_snippets_are_never_missing() {
    // `${NS}`, `{GATEWAY_NAME}` and `<myListenerName>` are filled in before the YAML is
    // applied: not reported, not suggested. The one real typo is.
    let (code, out, err) = run(&["check", "--format", "json", "fixtures/repos/docs-snippets"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        findings(&out),
        ["fixtures/repos/docs-snippets/docs/tls/policy.yaml:26:13 error[target-not-found] \
          Gateway/default/my-gatway does not exist; did you mean `my-gateway`?"]
    );
    // The DNSPolicy in the namespace `${DNSPOLICY_NAMESPACE}` reaches the Gateway written with
    // the same placeholder.
    let (_, out, _) = run(&["status", "--format", "json", "fixtures/repos/docs-snippets"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let dns = v["policies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["policy"].as_str().unwrap().starts_with("DNSPolicy"))
        .unwrap();
    assert_eq!(dns["policy"], "DNSPolicy.kuadrant.io/${DNSPOLICY_NAMESPACE}/prod-web");
    assert_eq!(dns["affects"], serde_json::json!(["Gateway/${DNSPOLICY_NAMESPACE}/prod-web#api"]));
}

#[test]
fn repo_split_by_team_folders_reports_the_one_true_overlap() {
    let (code, out, err) = run(&["check", "--format", "json", "fixtures/repos/teams"]);
    assert_eq!(code, 0, "{err}");
    // The route reaches the payments API across namespaces (granted); the Gateway's defaults
    // are replaced on the one rule whose team set its own timeout.
    assert_eq!(
        findings(&out),
        ["fixtures/repos/teams/infra/policies.yaml:6:9 information[partially-overridden] \
          `BackendTrafficPolicy.gateway.envoyproxy.io/infra/internal-defaults` is superseded in part by \
          `BackendTrafficPolicy.gateway.envoyproxy.io/shop/orders-timeout`: on `HTTPRoute/shop/orders#pay`, \
          its whole spec; it is still in effect on 1 of the 2 effective targets it reaches"]
    );
    assert_eq!(
        summary(&out),
        serde_json::json!({"files": 7, "documents": 9, "objects": 9, "policies": 3, "suppressed": 0})
    );
}

#[test]
fn a_base_under_two_overlays_is_explained_per_overlay() {
    // The base's route is one file but two objects: one in each overlay's namespace.
    let explain = |target: &str| -> Value {
        let (code, out, err) = run(&["explain", "--format", "json", "fixtures/repos/monorepo", "--target", target]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let staging = explain("HTTPRoute/shop-staging/storefront#pages");
    let ctx = &staging["policies"][0]["contexts"][0];
    assert_eq!(ctx["effective"], serde_json::json!({"timeout": {"http": {"requestTimeout": "10s"}}}));
    let prod = explain("HTTPRoute/shop-prod/storefront#pages");
    let ctx = &prod["policies"][0]["contexts"][0];
    assert_eq!(ctx["effective"], serde_json::json!({"retry": {"numRetries": 3}}));
    assert_eq!(ctx["lost"][0]["policy"], "BackendTrafficPolicy.gateway.envoyproxy.io/shop-prod/storefront-timeouts");
    assert_eq!(ctx["lost"][0]["outcome"], "Conflicted");
    // The base alone is no application: nothing is in the namespace it leaves unset.
    let (code, _, err) = run(&["explain", "fixtures/repos/monorepo", "--target", "HTTPRoute/default/storefront#pages"]);
    assert_eq!(code, 2);
    assert!(err.contains("is not in the workspace"), "{err}");
}

#[test]
fn gitops_repo_resolves_gateways_from_its_context_and_reports_only_its_own_files() {
    let (code, out, err) = run(&["check", "--format", "json", "fixtures/repos/gitops"]);
    assert_eq!(code, 1, "{err}");
    // The true findings: a typo in a listener name, and an external authorization port the
    // platform's Service does not have (its namespace admits the policy by a ReferenceGrant in
    // the platform repository). The route attaches (the shop namespace is not in the world, so
    // the listener's namespace selector is assumed to admit it) and nothing is reported on the
    // platform repository's files.
    assert_eq!(
        findings(&out),
        [
            "fixtures/repos/gitops/apps/shop/auth.yaml:19:17 warning[backend-not-found] Service/auth/grpc-ext-auth has no port 9000 (ports: `9002`): Envoy Gateway rejects the policy and answers requests on its targets with HTTP 500",
            "fixtures/repos/gitops/apps/shop/policy.yaml:27:20 error[section-not-found] Gateway/infra/edge has no listener named `htps`; did you mean `https`? (listeners: `https`)"
        ]
    );
    // One changed file, as a pre-commit hook passes it: the workspace is analysed, only that
    // file is reported on.
    let (code, out, _) = run(&["check", "--format", "json", "fixtures/repos/gitops/apps/shop/route.yaml"]);
    assert_eq!((code, findings(&out)), (0, vec![]));
    assert_eq!(summary(&out)["files"], 5, "the whole workspace was analysed");
    // --isolated: the file alone (with its config's context), so the route it targets is
    // missing.
    let (code, out, _) =
        run(&["check", "--isolated", "--format", "json", "fixtures/repos/gitops/apps/shop/policy.yaml"]);
    assert_eq!(code, 1);
    let codes: Vec<String> = findings(&out).iter().map(|f| f.split(' ').nth(1).unwrap_or("").to_owned()).collect();
    assert_eq!(codes, ["error[target-not-found]", "error[section-not-found]"]);
}

#[test]
fn standard_input_is_checked_as_the_file_it_stands_for() {
    let text = std::fs::read_to_string(repo().join("fixtures/repos/gitops/apps/shop/policy.yaml")).unwrap();
    let fixed = text.replace("sectionName: htps", "sectionName: https");
    let name = "fixtures/repos/gitops/apps/shop/policy.yaml";
    let (code, out, err) = run_with(&["check", "--format", "json", "--stdin-filename", name, "-"], Some(&fixed));
    assert_eq!((code, findings(&out)), (0, vec![]), "{err}");
    let (code, out, _) = run_with(&["check", "--format", "json", "--stdin-filename", name, "-"], Some(&text));
    assert_eq!(code, 1);
    assert_eq!(findings(&out).len(), 1);
    assert!(findings(&out)[0].starts_with(&format!("{name}:27:20 error[section-not-found]")), "{out}");
    // Nothing on standard input is no input, never a green run.
    let (code, _, err) = run_with(&["check", "/dev/stdin"], Some(""));
    assert_eq!(code, 2);
    assert_eq!(err.trim(), "policylens: /dev/stdin: no input (read nothing)");
}

#[test]
fn a_path_without_yaml_is_a_usage_error() {
    let (code, out, err) = run(&["check", "server/cli/src"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(err.trim(), "policylens: server/cli/src: no YAML files (*.yaml, *.yml) found here");
    let (code, _, err) = run(&["check", "no/such/dir"]);
    assert_eq!(code, 2);
    assert_eq!(err.trim(), "policylens: no/such/dir: no such file or directory");
}

#[test]
fn fail_on_sets_which_severities_fail_the_run() {
    // fixtures/bad: errors and warnings; fixtures/repos/monorepo: one note at most.
    let (code, _, _) = run(&["check", "fixtures/repos/gitops", "--fail-on", "error"]);
    assert_eq!(code, 1);
    let dir = tempdir("fail-on");
    std::fs::write(dir.join("a.yaml"), ROUTE_WITHOUT_SERVICE).unwrap();
    std::fs::write(dir.join("gateway.yaml"), GATEWAY).unwrap();
    let d = dir.to_str().unwrap();
    let (code, out, _) = run(&["check", "--format", "json", d]);
    assert_eq!(code, 0, "a warning does not fail by default: {out}");
    assert_eq!(findings(&out).len(), 1, "{out}");
    assert!(findings(&out)[0].contains("warning[backend-not-found]"), "{out}");
    let (code, _, _) = run(&["check", d, "--fail-on", "warning"]);
    assert_eq!(code, 1);
    // A config severity changes what fails: the warning becomes information.
    std::fs::write(dir.join(".policylens.yaml"), "diagnostics: {backend-not-found: information}\n").unwrap();
    let (code, out, _) = run(&["check", "--format", "json", d, "--fail-on", "warning"]);
    assert_eq!(code, 0, "{out}");
    assert!(findings(&out)[0].contains("information[backend-not-found]"), "{out}");
    // duplicate-object is off by default (copies are how repositories are written); turned on,
    // it reports the copy.
    std::fs::write(dir.join("b.yaml"), ROUTE_WITHOUT_SERVICE).unwrap();
    std::fs::write(dir.join(".policylens.yaml"), "diagnostics: {duplicate-object: warning}\n").unwrap();
    let (_, out, _) = run(&["check", "--format", "json", d]);
    let dups: Vec<String> = findings(&out).into_iter().filter(|f| f.contains("[duplicate-object]")).collect();
    assert_eq!(dups.len(), 1, "{out}");
    assert!(dups[0].contains("HTTPRoute/default/web is also defined at "), "{}", dups[0]);
    assert!(dups[0].ends_with("a.yaml:4 (identical copies)"), "{}", dups[0]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sarif_carries_suppressed_results_with_their_justification() {
    let (_, out, _) = run(&["check", "--format", "sarif", "fixtures/repos/e2e"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    let suppressed: Vec<&Value> = results.iter().filter(|r| r.get("suppressions").is_some()).collect();
    assert_eq!(suppressed.len(), 1, "{out}");
    assert_eq!(suppressed[0]["ruleId"], "target-not-found");
    assert_eq!(
        suppressed[0]["suppressions"],
        serde_json::json!([{"kind": "inSource", "justification": "# policylens: ignore[target-not-found]"}])
    );
}

/// A route whose backend Service is missing (a warning), on a Gateway of [`GATEWAY`].
const ROUTE_WITHOUT_SERVICE: &str = "\
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: web
spec:
  parentRefs:
    - name: gw
  rules:
    - backendRefs:
        - name: web
          port: 80
";

const GATEWAY: &str = "\
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
spec:
  gatewayClassName: eg
  listeners:
    - {name: http, port: 80, protocol: HTTP}
";

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("policylens-repos-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn explain_code_prints_the_codes_page_and_sarif_rules_carry_it() {
    let (code, out, _) = run(&["explain-code", "route-without-parent"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("route-without-parent\n\n**Information.** A route has no `parentRefs`."), "{out}");
    assert!(
        out.trim_end()
            .ends_with("https://github.com/policylens/policylens/blob/main/docs/diagnostics.md#route-without-parent"),
        "{out}"
    );
    let (code, _, err) = run(&["explain-code", "target-not-fund"]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "policylens: `target-not-fund` is not a policylens diagnostic code; did you mean `target-not-found`?"
    );
    let (_, out, _) = run(&["check", "--format", "sarif", "fixtures/repos/gitops"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let rules = v["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    let rule = rules.iter().find(|r| r["id"] == "section-not-found").unwrap();
    assert_eq!(rule["name"], "SectionNotFound");
    assert_eq!(
        rule["helpUri"],
        "https://github.com/policylens/policylens/blob/main/docs/diagnostics.md#section-not-found"
    );
    assert!(
        rule["fullDescription"]["text"].as_str().unwrap().starts_with("**Error.** `sectionName` names no listener")
    );
    assert!(rule["help"]["markdown"].as_str().unwrap().contains("How to fix:"));
}

#[test]
fn targets_lists_what_explain_takes_and_explain_forgives_the_kinds_case() {
    let (code, out, _) = run(&["targets", "--reached", "fixtures/demo"]);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "Gateway/infra/edge#https  (ClientTrafficPolicy.gateway.envoyproxy.io)",
            "HTTPRoute/shop/checkout#cart  (AuthPolicy.kuadrant.io, BackendTrafficPolicy.gateway.envoyproxy.io, RateLimitPolicy.kuadrant.io)",
            "HTTPRoute/shop/checkout#pay  (AuthPolicy.kuadrant.io, BackendTrafficPolicy.gateway.envoyproxy.io, RateLimitPolicy.kuadrant.io)",
            "HTTPRoute/shop/storefront#pages  (AuthPolicy.kuadrant.io, BackendTrafficPolicy.gateway.envoyproxy.io, RateLimitPolicy.kuadrant.io)",
            "HTTPRoute/shop/storefront#static  (AuthPolicy.kuadrant.io, BackendTrafficPolicy.gateway.envoyproxy.io, RateLimitPolicy.kuadrant.io)",
            "Service/payments/payments-api#https  (BackendTLSPolicy)",
        ]
    );
    let (code, out, _) = run(&["explain", "fixtures/demo", "--target", "httproute/shop/checkout#pay"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("HTTPRoute/shop/checkout#pay\n"), "{out}");
    let (code, _, err) = run(&["explain", "fixtures/demo", "--target", "HTTPRoute/shop/chekout"]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "policylens: `HTTPRoute/shop/chekout` is not in the workspace; did you mean `HTTPRoute/shop/checkout`?"
    );
}

/// A cloned repository's `.policylens.yaml` may name context directories inside its own
/// workspace only: `../elsewhere` outside the git work tree is skipped with a warning (so its
/// Gateway is missing), while `--context` on the command line may name it.
#[test]
fn a_config_context_outside_its_workspace_is_not_read() {
    let tmp = std::env::temp_dir().join(format!("policylens-context-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let (clone, elsewhere) = (tmp.join("clone"), tmp.join("elsewhere"));
    std::fs::create_dir_all(clone.join(".git")).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(clone.join(".policylens.yaml"), "context: [\"../elsewhere\"]\n").unwrap();
    std::fs::write(
        clone.join("route.yaml"),
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\n  namespace: infra\nspec:\n  parentRefs:\n  - name: edge\n",
    )
    .unwrap();
    std::fs::write(
        elsewhere.join("gateway.yaml"),
        "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: edge\n  namespace: infra\nspec:\n  gatewayClassName: eg\n  listeners:\n  - name: http\n    port: 80\n    protocol: HTTP\n",
    )
    .unwrap();
    let dir = clone.to_string_lossy().into_owned();
    let (code, out, err) = run(&["check", "--format", "json", &dir]);
    let codes: Vec<String> = findings(&out).iter().map(|f| f.split(' ').nth(1).unwrap_or("").to_owned()).collect();
    assert_eq!((code, codes), (1, vec!["error[parent-not-found]".to_owned()]), "{out}");
    assert!(err.contains("context ") && err.contains("outside the workspace"), "{err}");
    let ctx = elsewhere.to_string_lossy().into_owned();
    let (code, out, _) = run(&["check", "--format", "json", "--context", &ctx, &dir]);
    assert_eq!((code, findings(&out)), (0, vec![]));
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// `check` on a GitOps fixture repository: its findings and exit code.
fn gitops_findings(repo: &str) -> (i32, Vec<String>) {
    let (code, out, err) = run(&["check", "--format", "json", repo]);
    assert!(code == 0 || code == 1, "{err}");
    (code, findings(&out))
}

#[test]
fn flux_repository_as_its_kustomizations_apply_it() {
    // fixtures/repos/README.md says what this repository must finally report, and it now does:
    // exit 0, the replaced Gateway defaults shown, nothing else loud. Flux Kustomizations are
    // read as units: the Gateways are in `network` (targetNamespace), each app's objects in its
    // namespace with its `${APP}` (three SecurityPolicies from one component),
    // `${CLUSTER_DOMAIN}` from the ConfigMap, the encrypted Secret's variable left as written;
    // the two files nothing applies are said once each. The Gateway's defaults are replaced
    // whole on home-assistant's route (no `mergeType`), and only the timeout on jellyfin's and
    // zigbee's (which merge). app-template renders Service `home-assistant` and HTTPRoute
    // `zigbee` from their HelmReleases; the Grafana operator's `grafana-service` is unknown,
    // named with its generator.
    let (code, got) = gitops_findings("fixtures/repos/flux");
    assert_eq!(code, 0);
    let p = "fixtures/repos/flux/kubernetes";
    let not_applied = |key: &str| {
        format!(
            "no Flux Kustomization or Argo CD Application of this repository applies this file, so `{key}` is in no cluster it manages; the file is analysed alone and nothing else is reported on it"
        )
    };
    assert_eq!(
        got,
        [
            format!(
                "{p}/apps/home-automation/home-assistant/app/httproute-legacy.yaml:4:7 information[not-applied] {}",
                not_applied("HTTPRoute/default/home-assistant-legacy")
            ),
            format!(
                "{p}/apps/network/envoy-gateway/app/envoy.yaml:83:9 information[partially-overridden] `BackendTrafficPolicy.gateway.envoyproxy.io/network/envoy` is superseded in part by `BackendTrafficPolicy.gateway.envoyproxy.io/home-automation/home-assistant`, `BackendTrafficPolicy.gateway.envoyproxy.io/home-automation/zigbee`, `BackendTrafficPolicy.gateway.envoyproxy.io/media/jellyfin`: on `HTTPRoute/home-automation/home-assistant`, its whole spec; on `HTTPRoute/home-automation/zigbee`, `timeout.http.requestTimeout`; on `HTTPRoute/media/jellyfin`, `timeout.http.requestTimeout`; it is still in effect on 5 of the 6 effective targets it reaches"
            ),
            format!(
                "{p}/apps/observability/grafana/app/httproute.yaml:14:17 information[backend-not-found] Service/observability/grafana-service does not exist (not in the files; Grafana `observability/grafana` creates Service `grafana-service`)"
            ),
            format!(
                "fixtures/repos/flux/scratch/debug-route.yaml:3:7 information[not-applied] {}",
                not_applied("HTTPRoute/network/debug")
            ),
        ]
    );
    // The anubis component's app-template release renders `${APP}-anubis` in each Kustomization
    // that includes it: jellyfin's route sends traffic to `jellyfin-anubis`, found (as
    // bjw-s-labs/home-ops' forgejo does).
    let (_, out, _) = run(&["targets", "fixtures/repos/flux"]);
    assert!(out.contains("\nService/media/jellyfin-anubis\nService/media/jellyfin-anubis#http\n"), "{out}");
    // Every surface names the objects by the namespace Flux puts them in, and each
    // Kustomization's instance of the shared component is its own policy.
    let (code, out, err) =
        run(&["explain", "fixtures/repos/flux", "--target", "HTTPRoute/home-automation/home-assistant"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("clientID: home-assistant "), "{out}");
    assert!(out.contains("redirectURL: \"https://home-assistant.home.example.net/oauth2/callback\""), "{out}");
    assert!(out.contains("issuer: \"https://${SECRET_AUTH_DOMAIN}\""), "{out}");
    assert!(out.contains("network/envoy: overridden by home-automation/home-assistant"), "{out}");
    assert!(
        out.starts_with("HTTPRoute/home-automation/home-assistant\napplied by the Flux Kustomization `home-automation/home-assistant` (kubernetes/apps/home-automation/home-assistant/ks.yaml) with targetNamespace `home-automation`\n"),
        "{out}"
    );
    let (_, out, _) = run(&["status", "--format", "json", "fixtures/repos/flux"]);
    let v: Value = serde_json::from_str(&out).expect("status json");
    let mut names: Vec<String> = v["policies"]
        .as_array()
        .expect("policies")
        .iter()
        .filter_map(|p| p["policy"].as_str().map(str::to_owned))
        .filter(|p| p.starts_with("SecurityPolicy"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "SecurityPolicy.gateway.envoyproxy.io/home-automation/home-assistant-oidc",
            "SecurityPolicy.gateway.envoyproxy.io/home-automation/zigbee-oidc",
            "SecurityPolicy.gateway.envoyproxy.io/media/jellyfin-oidc",
        ]
    );
}

#[test]
fn argocd_repository_as_its_applications_apply_it() {
    // fixtures/repos/README.md says what this repository must report. Argo CD Applications are
    // read as units: the app of apps applies `argocd/`, the platform ApplicationSet one
    // Application per folder of `platform/` (the Gateway and its defaults in `gateway`, the
    // folder's name), the tenants one `tenants/base` per tenant namespace, `shop` its kustomize
    // overlay in `shop`; `platform/experimental` is excluded, so its route is said once and
    // nothing else. The route-level BackendTrafficPolicy without `mergeType` replaces the
    // Gateway's defaults on the checkout route. app-template is rendered where its values are
    // in the files: the overlay's `helmCharts` item (the storefront, whose policy's timeout
    // replaces the Gateway's there) and the wiki Application's Helm source; a policy on a route
    // the wiki's values do not render is a true error, no longer "may render it".
    let (code, got) = gitops_findings("fixtures/repos/argocd");
    assert_eq!(code, 1);
    let p = "fixtures/repos/argocd";
    assert_eq!(
        got,
        [
            format!(
                "{p}/apps/wiki/policies.yaml:24:13 error[target-not-found] HTTPRoute/wiki/wiki-admin does not exist"
            ),
            format!(
                "{p}/platform/experimental/route.yaml:3:7 information[not-applied] no Flux Kustomization or Argo CD Application of this repository applies this file, so `HTTPRoute/default/playground` is in no cluster it manages; the file is analysed alone and nothing else is reported on it"
            ),
            format!(
                "{p}/platform/gateway/policies.yaml:5:9 information[partially-overridden] `BackendTrafficPolicy.gateway.envoyproxy.io/gateway/edge-defaults` is superseded in part by `BackendTrafficPolicy.gateway.envoyproxy.io/shop/checkout-no-retry`, `BackendTrafficPolicy.gateway.envoyproxy.io/shop/storefront-timeouts`: on `HTTPRoute/shop/checkout`, its whole spec; on `HTTPRoute/shop/storefront`, `timeout.http.requestTimeout`; it is still in effect on 4 of the 5 effective targets it reaches"
            ),
        ]
    );
    // Every surface names the objects by the namespace their Application puts them in.
    let (code, out, err) = run(&["explain", p, "--target", "HTTPRoute/shop/checkout"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("gateway/edge-defaults: overridden by shop/checkout-no-retry"), "{out}");
    assert!(
        out.starts_with("HTTPRoute/shop/checkout\napplied by the Argo CD Application `argocd/shop` (argocd/shop.yaml) with destination namespace `shop`\n"),
        "{out}"
    );
    let (_, out, _) = run(&["explain", "--format", "json", p, "--target", "HTTPRoute/tenant-green/portal"]);
    let v: Value = serde_json::from_str(&out).expect("explain json");
    assert_eq!(
        v["appliedBy"],
        "the Argo CD Application `argocd/tenant-green` of the ApplicationSet `argocd/tenants` (argocd/tenants.yaml) with destination namespace `tenant-green`"
    );
    // What a Helm source renders is applied by its Application, in its destination namespace;
    // what a `helmCharts` item renders by the Application that builds the kustomization.
    let (_, out, _) = run(&["explain", "--format", "json", p, "--target", "HTTPRoute/wiki/wiki"]);
    let v: Value = serde_json::from_str(&out).expect("explain json");
    assert_eq!(
        v["appliedBy"],
        "the Argo CD Application `argocd/wiki` (argocd/wiki.yaml) with destination namespace `wiki`"
    );
    let (_, out, _) = run(&["explain", "--format", "json", p, "--target", "HTTPRoute/shop/storefront"]);
    let v: Value = serde_json::from_str(&out).expect("explain json");
    assert_eq!(
        v["appliedBy"],
        "the Argo CD Application `argocd/shop` (argocd/shop.yaml) with destination namespace `shop`"
    );
    let (_, out, _) = run(&["status", "--format", "json", p]);
    let v: Value = serde_json::from_str(&out).expect("status json");
    let affects = |policy: &str| {
        let mut a: Vec<String> = v["policies"]
            .as_array()
            .expect("policies")
            .iter()
            .filter(|p| p["policy"] == policy)
            .flat_map(|p| p["affects"].as_array().cloned().unwrap_or_default())
            .filter_map(|a| a.as_str().map(str::to_owned))
            .collect();
        a.sort();
        a
    };
    assert_eq!(
        affects("BackendTrafficPolicy.gateway.envoyproxy.io/gateway/edge-defaults"),
        [
            "HTTPRoute/shop/storefront",
            "HTTPRoute/tenant-blue/portal",
            "HTTPRoute/tenant-green/portal",
            "HTTPRoute/wiki/wiki"
        ]
    );
    assert_eq!(affects("SecurityPolicy.gateway.envoyproxy.io/wiki/wiki-basic-auth"), ["HTTPRoute/wiki/wiki"]);
    assert_eq!(
        affects("BackendTrafficPolicy.gateway.envoyproxy.io/shop/storefront-timeouts"),
        ["HTTPRoute/shop/storefront"]
    );
}

#[test]
fn app_template_releases_render_their_services_and_routes_at_their_values() {
    let (code, out, err) = run(&["check", "--format", "json", "fixtures/repos/app-template"]);
    assert_eq!(code, 1, "{err}");
    // The rendered routes are targets: the route-level policy without `mergeType` replaces the
    // Gateway's defaults on `sonarr`, the route's own timeout replaces one on `plex-server`;
    // the one true error targets a name the chart does not render (`forceRename` names it).
    assert_eq!(findings(&out), APP_TEMPLATE_FINDINGS);
    // Every name as the chart computes it (fixtures/repos/app-template cites each rule), in the
    // release's namespace or its `targetNamespace`; the podinfo chart renders nothing here.
    let (code, out, err) = run(&["targets", "fixtures/repos/app-template"]);
    assert_eq!(code, 0, "{err}");
    let rendered: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("HTTPRoute/") || l.starts_with("GRPCRoute/") || l.starts_with("Service/"))
        .collect();
    assert_eq!(rendered, APP_TEMPLATE_TARGETS);
}

const APP_TEMPLATE_FINDINGS: &[&str] = &[
    "fixtures/repos/app-template/apps/default/echo/securitypolicy.yaml:26:13 error[target-not-found] HTTPRoute/default/echo-app does not exist",
    "fixtures/repos/app-template/network/defaults.yaml:6:9 information[partially-overridden] `BackendTrafficPolicy.gateway.envoyproxy.io/network/envoy-external-defaults` is superseded in part by `BackendTrafficPolicy.gateway.envoyproxy.io/media/sonarr`, `HTTPRoute/media/plex-server (its own value)`: on `HTTPRoute/media/plex-server`, `timeout.http.requestTimeout`; on `HTTPRoute/media/sonarr`, its whole spec; it is still in effect on 5 of the 6 effective targets it reaches",
];

const APP_TEMPLATE_TARGETS: &[&str] = &[
    "GRPCRoute/default/echo-grpc  (BackendTrafficPolicy.gateway.envoyproxy.io)",
    "HTTPRoute/default/echo-admin  (BackendTrafficPolicy.gateway.envoyproxy.io)",
    "HTTPRoute/default/echo-public  (BackendTrafficPolicy.gateway.envoyproxy.io, SecurityPolicy.gateway.envoyproxy.io)",
    "HTTPRoute/legacy/legacy-wiki-web  (BackendTrafficPolicy.gateway.envoyproxy.io)",
    "HTTPRoute/media/plex-server  (BackendTrafficPolicy.gateway.envoyproxy.io)",
    "HTTPRoute/media/sonarr  (BackendTrafficPolicy.gateway.envoyproxy.io)",
    "Service/default/echo",
    "Service/default/echo#http",
    "Service/default/internal-echo-metrics",
    "Service/default/internal-echo-metrics#grpc",
    "Service/legacy/legacy-wiki",
    "Service/legacy/legacy-wiki#http",
    "Service/legacy/legacy-wiki-api",
    "Service/legacy/legacy-wiki-api#http  (BackendTLSPolicy)",
    "Service/media/plex-server-app",
    "Service/media/plex-server-app#http",
    "Service/media/plex-server-app#metrics",
    "Service/media/plex-server-dlna",
    "Service/media/plex-server-dlna#dlna-udp",
    "Service/media/sonarr",
    "Service/media/sonarr#http",
];
