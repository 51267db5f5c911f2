//! Who serves a Gateway (docs/semantics.md §4.4.1): the implementations policylens knows by
//! their GatewayClass `controllerName`, and the classes they create themselves, so that a
//! Gateway naming one is never "class not found" and its controller is known without a
//! GatewayClass object in the files. Each entry cites where the name comes from.

/// One Gateway API implementation, recognised by its `controllerName`s.
#[derive(Debug, PartialEq, Eq)]
pub struct Implementation {
    /// The identifier catalog entries and `.policylens.yaml` (`controllers:`) use.
    pub id: &'static str,
    /// How people call it.
    pub name: &'static str,
    /// `controllerName` values it serves: exact names, or prefixes ending in `/` (the
    /// domain part, for implementations whose name is configurable within their domain).
    pub controller_names: &'static [&'static str],
    pub source: &'static str,
}

impl Implementation {
    fn serves(&self, controller_name: &str) -> bool {
        self.controller_names
            .iter()
            .any(|n| if n.ends_with('/') { controller_name.starts_with(n) } else { controller_name == *n })
    }
}

/// A GatewayClass an implementation creates (or its install guide applies) without the user
/// writing one.
#[derive(Debug, PartialEq, Eq)]
pub struct CreatedClass {
    pub name: &'static str,
    pub controller_name: &'static str,
    /// When it exists: how the implementation makes it.
    pub how: &'static str,
    pub source: &'static str,
}

pub const ISTIO: &str = "istio";
pub const ENVOY_GATEWAY: &str = "envoy-gateway";
pub const NGINX_GATEWAY_FABRIC: &str = "nginx-gateway-fabric";
pub const KGATEWAY: &str = "kgateway";
pub const AGENTGATEWAY: &str = "agentgateway";
pub const GLOO_GATEWAY: &str = "gloo-gateway";
pub const CILIUM: &str = "cilium";
pub const GKE: &str = "gke";
pub const TRAEFIK: &str = "traefik";
pub const KONG: &str = "kong";
pub const AWS_VPC_LATTICE: &str = "aws-vpc-lattice";
pub const AZURE_ALB: &str = "azure-alb";
pub const CONSUL: &str = "consul";
pub const FSM: &str = "fsm";
pub const KUMA: &str = "kuma";
pub const APISIX: &str = "apisix";

/// Every implementation policylens recognises. A controllerName none of them serves is an
/// unknown controller: it is assumed to implement every kind.
pub const IMPLEMENTATIONS: &[Implementation] = &[
    Implementation {
        id: ISTIO,
        name: "Istio",
        // istio.io/gateway-controller, mesh-controller (waypoints), unmanaged-gateway (remote),
        // eastwest-controller, agentgateway-controller, agentgateway-waypoint-controller.
        controller_names: &["istio.io/"],
        source: "istio/istio 86c9f01f pkg/config/constants/constants.go, pilot/pkg/features/pilot.go (PILOT_GATEWAY_API_CONTROLLER_NAME)",
    },
    Implementation {
        id: ENVOY_GATEWAY,
        name: "Envoy Gateway",
        // Configurable (EnvoyGateway `gateway.controllerName`); the default is
        // gateway.envoyproxy.io/gatewayclass-controller. Envoy AI Gateway uses it too.
        controller_names: &["gateway.envoyproxy.io/"],
        source: "envoyproxy/gateway d32f2829 api/v1alpha1/envoygateway_types.go (GatewayControllerName)",
    },
    Implementation {
        id: NGINX_GATEWAY_FABRIC,
        name: "NGINX Gateway Fabric",
        controller_names: &["gateway.nginx.org/"],
        source: "nginx/nginx-gateway-fabric e55bfe33 charts/nginx-gateway-fabric/values.yaml (gateway.nginx.org/nginx-gateway-controller)",
    },
    Implementation {
        id: KGATEWAY,
        name: "kgateway",
        controller_names: &["kgateway.dev/kgateway"],
        source: "kgateway-dev/kgateway pkg/kgateway/wellknown/controller.go (DefaultGatewayControllerName)",
    },
    Implementation {
        id: AGENTGATEWAY,
        name: "agentgateway (kgateway)",
        controller_names: &["agentgateway.dev/agentgateway"],
        source: "kgateway-dev/kgateway pkg/kgateway/wellknown/controller.go (DefaultAgwControllerName)",
    },
    Implementation {
        id: GLOO_GATEWAY,
        name: "Gloo Gateway",
        controller_names: &["solo.io/gloo-gateway"],
        source: "solo-io/gloo 8d57572e projects/gateway2/wellknown/controller.go (GatewayControllerName)",
    },
    Implementation {
        id: CILIUM,
        name: "Cilium",
        controller_names: &["io.cilium/gateway-controller"],
        source: "cilium/cilium install/kubernetes/cilium/templates/cilium-gateway-api-class.yaml",
    },
    Implementation {
        id: GKE,
        name: "GKE Gateway",
        controller_names: &["networking.gke.io/gateway"],
        source: "GoogleCloudPlatform/gke-networking-recipes cce16186 gateway/single-cluster/global-l7-xlb/README.md (kubectl get gatewayclass)",
    },
    Implementation {
        id: TRAEFIK,
        name: "Traefik",
        controller_names: &["traefik.io/gateway-controller"],
        source: "traefik/traefik-helm-chart a8a66d00 traefik/templates/gatewayclass.yaml",
    },
    Implementation {
        id: KONG,
        name: "Kong",
        // The ingress controller's default (flag --gateway-api-controller-name), and Kong
        // Operator's.
        controller_names: &["konghq.com/kic-gateway-controller", "konghq.com/gateway-operator"],
        source: "Kong/kubernetes-ingress-controller 1fa68f86 internal/controllers/gateway/gatewayclass_controller.go (_controllerName)",
    },
    Implementation {
        id: AWS_VPC_LATTICE,
        name: "AWS Gateway API Controller (VPC Lattice)",
        controller_names: &["application-networking.k8s.aws/gateway-api-controller"],
        source: "aws/aws-application-networking-k8s 03d6abec pkg/config/controller_config.go",
    },
    Implementation {
        id: AZURE_ALB,
        name: "Azure Application Gateway for Containers",
        controller_names: &["alb.networking.azure.io/alb-controller"],
        source: "learn.microsoft.com application-gateway/for-containers quickstart (ALB Controller add-on)",
    },
    Implementation {
        id: CONSUL,
        name: "Consul API Gateway",
        controller_names: &["consul.hashicorp.com/gateway-controller"],
        source: "hashicorp/consul-k8s a507b1d1 control-plane/subcommand/gateway-resources/command.go",
    },
    Implementation {
        id: FSM,
        name: "Flomesh FSM",
        controller_names: &["flomesh.io/gateway-controller"],
        source: "flomesh-io/fsm f1b55bd8 pkg/constants/constants.go",
    },
    Implementation {
        id: KUMA,
        name: "Kuma",
        controller_names: &["gateways.kuma.io/controller"],
        source: "kumahq/kuma 348b6528 pkg/plugins/runtime/k8s/controllers/gatewayapi/common/common.go",
    },
    Implementation {
        id: APISIX,
        name: "Apache APISIX",
        controller_names: &["apisix.apache.org/"],
        source: "apache/apisix-ingress-controller (controllerName apisix.apache.org/apisix-ingress-controller)",
    },
];

const ISTIO_CLASSES: &str = "istio/istio 86c9f01f pilot/pkg/config/kube/gatewaycommon/classinfo.go";
const GKE_CLASSES: &str = "docs.cloud.google.com/kubernetes-engine/docs/how-to/gatewayclass-capabilities";
const KGATEWAY_CLASSES: &str = "kgateway-dev/kgateway pkg/kgateway/wellknown/controller.go";

/// The classes implementations create themselves (or their install guide applies).
pub const CREATED_CLASSES: &[CreatedClass] = &[
    CreatedClass {
        name: "istio",
        controller_name: "istio.io/gateway-controller",
        how: "istiod creates it at start-up (PILOT_GATEWAY_API_DEFAULT_GATEWAYCLASS_NAME)",
        source: ISTIO_CLASSES,
    },
    CreatedClass {
        name: "istio-remote",
        controller_name: "istio.io/unmanaged-gateway",
        how: "istiod, with PILOT_MULTI_NETWORK_DISCOVER_GATEWAY_API (on by default)",
        source: ISTIO_CLASSES,
    },
    CreatedClass {
        name: "istio-waypoint",
        controller_name: "istio.io/mesh-controller",
        how: "istiod in ambient mode",
        source: ISTIO_CLASSES,
    },
    CreatedClass {
        name: "istio-east-west",
        controller_name: "istio.io/eastwest-controller",
        how: "istiod in ambient mode with AMBIENT_ENABLE_MULTI_NETWORK",
        source: ISTIO_CLASSES,
    },
    CreatedClass {
        name: "istio-agentgateway",
        controller_name: "istio.io/agentgateway-controller",
        how: "istiod with PILOT_ENABLE_AGENTGATEWAY",
        source: ISTIO_CLASSES,
    },
    CreatedClass {
        name: "istio-agentgateway-waypoint",
        controller_name: "istio.io/agentgateway-waypoint-controller",
        how: "istiod with PILOT_ENABLE_AGENTGATEWAY in ambient mode",
        source: ISTIO_CLASSES,
    },
    CreatedClass {
        name: "cilium",
        controller_name: "io.cilium/gateway-controller",
        how: "the Cilium Helm chart with gatewayAPI.enabled",
        source: "cilium/cilium install/kubernetes/cilium/templates/cilium-gateway-api-class.yaml",
    },
    CreatedClass {
        name: "gke-l7-global-external-managed",
        controller_name: "networking.gke.io/gateway",
        how: "GKE, when the Gateway API is enabled on the cluster",
        source: GKE_CLASSES,
    },
    CreatedClass {
        name: "gke-l7-regional-external-managed",
        controller_name: "networking.gke.io/gateway",
        how: "GKE, when the Gateway API is enabled on the cluster",
        source: GKE_CLASSES,
    },
    CreatedClass {
        name: "gke-l7-rilb",
        controller_name: "networking.gke.io/gateway",
        how: "GKE, when the Gateway API is enabled on the cluster",
        source: GKE_CLASSES,
    },
    CreatedClass {
        name: "gke-l7-gxlb",
        controller_name: "networking.gke.io/gateway",
        how: "GKE, when the Gateway API is enabled on the cluster",
        source: GKE_CLASSES,
    },
    CreatedClass {
        name: "gke-l7-global-external-managed-mc",
        controller_name: "networking.gke.io/gateway",
        how: "GKE, in a fleet's config cluster with multi-cluster Gateways",
        source: GKE_CLASSES,
    },
    CreatedClass {
        name: "gke-l7-regional-external-managed-mc",
        controller_name: "networking.gke.io/gateway",
        how: "GKE, in a fleet's config cluster with multi-cluster Gateways",
        source: GKE_CLASSES,
    },
    CreatedClass {
        name: "gke-l7-cross-regional-internal-managed-mc",
        controller_name: "networking.gke.io/gateway",
        how: "GKE, in a fleet's config cluster with multi-cluster Gateways",
        source: GKE_CLASSES,
    },
    CreatedClass {
        name: "gke-l7-rilb-mc",
        controller_name: "networking.gke.io/gateway",
        how: "GKE, in a fleet's config cluster with multi-cluster Gateways",
        source: GKE_CLASSES,
    },
    CreatedClass {
        name: "gke-l7-gxlb-mc",
        controller_name: "networking.gke.io/gateway",
        how: "GKE, in a fleet's config cluster with multi-cluster Gateways",
        source: GKE_CLASSES,
    },
    CreatedClass {
        name: "nginx",
        controller_name: "gateway.nginx.org/nginx-gateway-controller",
        how: "the NGINX Gateway Fabric Helm chart",
        source: "nginx/nginx-gateway-fabric e55bfe33 charts/nginx-gateway-fabric/templates/gatewayclass.yaml",
    },
    CreatedClass {
        name: "kgateway",
        controller_name: "kgateway.dev/kgateway",
        how: "kgateway applies it at start-up",
        source: KGATEWAY_CLASSES,
    },
    CreatedClass {
        name: "kgateway-waypoint",
        controller_name: "kgateway.dev/kgateway",
        how: "kgateway with waypoints enabled",
        source: KGATEWAY_CLASSES,
    },
    CreatedClass {
        name: "agentgateway",
        controller_name: "agentgateway.dev/agentgateway",
        how: "kgateway with agentgateway enabled",
        source: KGATEWAY_CLASSES,
    },
    CreatedClass {
        name: "gloo-gateway",
        controller_name: "solo.io/gloo-gateway",
        how: "the Gloo Helm chart with kubeGateway.enabled",
        source: "solo-io/gloo 8d57572e install/helm/gloo/templates/44-gatewayclass.yaml",
    },
    CreatedClass {
        name: "eg",
        controller_name: "gateway.envoyproxy.io/gatewayclass-controller",
        how: "Envoy Gateway's quickstart manifest (its Helm chart creates none)",
        source: "envoyproxy/gateway d32f2829 examples/kubernetes/quickstart.yaml",
    },
    CreatedClass {
        name: "traefik",
        controller_name: "traefik.io/gateway-controller",
        how: "the Traefik Helm chart with providers.kubernetesGateway.enabled",
        source: "traefik/traefik-helm-chart a8a66d00 traefik/templates/gatewayclass.yaml",
    },
    CreatedClass {
        name: "kong",
        controller_name: "konghq.com/kic-gateway-controller",
        how: "Kong's guides (annotated konghq.com/gatewayclass-unmanaged)",
        source: "Kong/kubernetes-ingress-controller 1fa68f86 examples/gateway-*.yaml",
    },
    CreatedClass {
        name: "amazon-vpc-lattice",
        controller_name: "application-networking.k8s.aws/gateway-api-controller",
        how: "the AWS Gateway API Controller's deploy guide",
        source: "aws/aws-application-networking-k8s 03d6abec docs/guides/deploy.md (files/controller-installation/gatewayclass.yaml)",
    },
    CreatedClass {
        name: "azure-alb-external",
        controller_name: "alb.networking.azure.io/alb-controller",
        how: "the ALB Controller (Helm or AKS add-on)",
        source: "learn.microsoft.com application-gateway/for-containers quickstart (ALB Controller add-on)",
    },
    CreatedClass {
        name: "consul",
        controller_name: "consul.hashicorp.com/gateway-controller",
        how: "the Consul Helm chart's gateway-resources job (connectInject.enabled)",
        source: "hashicorp/consul-k8s a507b1d1 charts/consul/templates/gateway-resources-job.yaml",
    },
    CreatedClass {
        name: "fsm",
        controller_name: "flomesh.io/gateway-controller",
        how: "FSM creates it at start-up",
        source: "flomesh-io/fsm f1b55bd8 pkg/gateway/client.go",
    },
];

/// Implementations that do not check ReferenceGrants on a route's backendRefs: a backendRef
/// into another namespace is followed without one (GEP-709 does not bind them), so for routes
/// whose Gateways are all theirs a missing grant is no finding. With where it is read.
pub const IGNORE_REFERENCE_GRANTS: &[(&str, &str)] = &[(
    AWS_VPC_LATTICE,
    // The controller reads the Service a backendRef names in whatever namespace it writes
    // (`GetServiceForBackendRef`, `getBackendRefNsName`) and reads no ReferenceGrant anywhere;
    // its conformance table lists HTTPRouteReferenceGrant as N/A.
    "aws/aws-application-networking-k8s 03d6abec pkg/gateway/model_build_targetgroup.go, docs/conformance-test.md",
)];

/// Whether the implementation serving `controller_name` checks ReferenceGrants on backendRefs
/// (an unknown controller is assumed to, as GEP-709 says).
pub fn checks_reference_grants(controller_name: &str) -> bool {
    implementation(controller_name).is_none_or(|i| !IGNORE_REFERENCE_GRANTS.iter().any(|(id, _)| *id == i.id))
}

/// The implementation serving `controller_name`, if policylens knows it.
pub fn implementation(controller_name: &str) -> Option<&'static Implementation> {
    IMPLEMENTATIONS.iter().find(|i| i.serves(controller_name))
}

/// The implementation with this id.
pub fn implementation_by_id(id: &str) -> Option<&'static Implementation> {
    IMPLEMENTATIONS.iter().find(|i| i.id == id)
}

/// The class an implementation creates under this name.
pub fn created_class(name: &str) -> Option<&'static CreatedClass> {
    CREATED_CLASSES.iter().find(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_controller_names_map_to_implementations() {
        let id = |n: &str| implementation(n).map(|i| i.id);
        assert_eq!(id("istio.io/gateway-controller"), Some(ISTIO));
        assert_eq!(id("istio.io/mesh-controller"), Some(ISTIO));
        assert_eq!(id("gateway.envoyproxy.io/gatewayclass-controller"), Some(ENVOY_GATEWAY));
        assert_eq!(id("gateway.nginx.org/nginx-gateway-controller"), Some(NGINX_GATEWAY_FABRIC));
        assert_eq!(id("kgateway.dev/kgateway"), Some(KGATEWAY));
        assert_eq!(id("agentgateway.dev/agentgateway"), Some(AGENTGATEWAY));
        assert_eq!(id("konghq.com/gateway-operator"), Some(KONG));
        // A prefix is a domain: `istio.io.example/x` is not Istio's.
        assert_eq!(id("istio.io.example/x"), None);
        assert_eq!(id("example.com/gateway-controller"), None);
    }

    #[test]
    fn catalog_created_classes_name_known_controllers() {
        let mut seen = std::collections::HashSet::new();
        for c in CREATED_CLASSES {
            assert!(seen.insert(c.name), "{} twice", c.name);
            assert!(implementation(c.controller_name).is_some(), "{}: {}", c.name, c.controller_name);
        }
        assert_eq!(created_class("istio").map(|c| c.controller_name), Some("istio.io/gateway-controller"));
        assert_eq!(created_class("gke-l7-rilb-mc").map(|c| c.controller_name), Some("networking.gke.io/gateway"));
        assert!(created_class("my-class").is_none());
        let mut ids = std::collections::HashSet::new();
        assert!(IMPLEMENTATIONS.iter().all(|i| ids.insert(i.id)));
    }
}
