import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";

/**
 * Arguments for creating an AWS Load Balancer Controller component
 */
export interface AwsLbControllerComponentArgs {
    /**
     * The EKS cluster name
     */
    clusterName: pulumi.Input<string>;

    /**
     * The VPC ID for the cluster
     */
    vpcId: pulumi.Input<string>;

    /**
     * AWS Load Balancer Controller Helm chart version
     * @default "3.0.0"
     */
    chartVersion?: string;

    /**
     * Namespace to deploy the controller
     * @default "kube-system"
     */
    namespace?: string;

    /**
     * AWS region
     */
    awsRegion: pulumi.Input<string>;

    /**
     * Tags to apply to taggable AWS resources managed by this component
     */
    tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

export class AwsLbControllerComponent extends pulumi.ComponentResource {
    /**
     * The controller IAM role
     */
    private readonly controllerRole: aws.iam.Role;

    /**
     * The Pod Identity Association
     */
    private readonly podIdentityAssociation: aws.eks.PodIdentityAssociation;

    /**
     * The Helm release
     */
    private readonly helmRelease: k8s.helm.v3.Release;

    constructor(name: string, args: AwsLbControllerComponentArgs, opts?: pulumi.ComponentResourceOptions) {
        super("custom:infrastructure:AwsLbControllerComponent", name, args, opts);

        const chartVersion = args.chartVersion || "3.0.0";
        const namespace = args.namespace || "kube-system";
        const tags = args.tags;

        // Create IAM Role with Pod Identity trust policy
        this.controllerRole = new aws.iam.Role(`${name}-role`, {
            name: pulumi.interpolate`AWSLoadBalancerControllerRole-${args.clusterName}`,
            assumeRolePolicy: JSON.stringify({
                Version: "2012-10-17",
                Statement: [{
                    Effect: "Allow",
                    Principal: {
                        Service: "pods.eks.amazonaws.com",
                    },
                    Action: [
                        "sts:AssumeRole",
                        "sts:TagSession",
                    ],
                }],
            }),
            tags: tags,
        }, { parent: this });

        // Create IAM Policy for AWS Load Balancer Controller
        // This is the official policy from AWS docs
        const controllerPolicy = new aws.iam.Policy(`${name}-policy`, {
            name: pulumi.interpolate`AWSLoadBalancerControllerPolicy-${args.clusterName}`,
            policy: pulumi.output(args.awsRegion).apply(region => JSON.stringify({
                Version: "2012-10-17",
                Statement: [
                    {
                        Effect: "Allow",
                        Action: [
                            "iam:CreateServiceLinkedRole"
                        ],
                        Resource: "*",
                        Condition: {
                            StringEquals: {
                                "iam:AWSServiceName": "elasticloadbalancing.amazonaws.com"
                            }
                        }
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "ec2:DescribeAccountAttributes",
                            "ec2:DescribeAddresses",
                            "ec2:DescribeAvailabilityZones",
                            "ec2:DescribeInternetGateways",
                            "ec2:DescribeVpcs",
                            "ec2:DescribeVpcPeeringConnections",
                            "ec2:DescribeSubnets",
                            "ec2:DescribeSecurityGroups",
                            "ec2:DescribeInstances",
                            "ec2:DescribeNetworkInterfaces",
                            "ec2:DescribeTags",
                            "ec2:GetCoipPoolUsage",
                            "ec2:DescribeCoipPools",
                            "elasticloadbalancing:DescribeLoadBalancers",
                            "elasticloadbalancing:DescribeLoadBalancerAttributes",
                            "elasticloadbalancing:DescribeListeners",
                            "elasticloadbalancing:DescribeListenerCertificates",
                            "elasticloadbalancing:DescribeSSLPolicies",
                            "elasticloadbalancing:DescribeRules",
                            "elasticloadbalancing:DescribeTargetGroups",
                            "elasticloadbalancing:DescribeTargetGroupAttributes",
                            "elasticloadbalancing:DescribeTargetHealth",
                            "elasticloadbalancing:DescribeTags",
                            "elasticloadbalancing:DescribeTrustStores",
                            "elasticloadbalancing:DescribeListenerAttributes",
                            "elasticloadbalancing:DescribeCapacityReservation"
                        ],
                        Resource: "*"
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "cognito-idp:DescribeUserPoolClient",
                            "acm:ListCertificates",
                            "acm:DescribeCertificate",
                            "iam:ListServerCertificates",
                            "iam:GetServerCertificate",
                            "waf-regional:GetWebACL",
                            "waf-regional:GetWebACLForResource",
                            "waf-regional:AssociateWebACL",
                            "waf-regional:DisassociateWebACL",
                            "wafv2:GetWebACL",
                            "wafv2:GetWebACLForResource",
                            "wafv2:AssociateWebACL",
                            "wafv2:DisassociateWebACL",
                            "shield:GetSubscriptionState",
                            "shield:DescribeProtection",
                            "shield:CreateProtection",
                            "shield:DeleteProtection"
                        ],
                        Resource: "*"
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "ec2:AuthorizeSecurityGroupIngress",
                            "ec2:RevokeSecurityGroupIngress"
                        ],
                        Resource: "*"
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "ec2:CreateSecurityGroup"
                        ],
                        Resource: "*"
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "ec2:CreateTags"
                        ],
                        Resource: "arn:aws:ec2:*:*:security-group/*",
                        Condition: {
                            StringEquals: {
                                "ec2:CreateAction": "CreateSecurityGroup"
                            },
                            Null: {
                                "aws:RequestTag/elbv2.k8s.aws/cluster": "false"
                            }
                        }
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "ec2:CreateTags",
                            "ec2:DeleteTags"
                        ],
                        Resource: "arn:aws:ec2:*:*:security-group/*",
                        Condition: {
                            Null: {
                                "aws:RequestTag/elbv2.k8s.aws/cluster": "true",
                                "aws:ResourceTag/elbv2.k8s.aws/cluster": "false"
                            }
                        }
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "ec2:AuthorizeSecurityGroupIngress",
                            "ec2:RevokeSecurityGroupIngress",
                            "ec2:DeleteSecurityGroup"
                        ],
                        Resource: "*",
                        Condition: {
                            Null: {
                                "aws:ResourceTag/elbv2.k8s.aws/cluster": "false"
                            }
                        }
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "elasticloadbalancing:CreateLoadBalancer",
                            "elasticloadbalancing:CreateTargetGroup"
                        ],
                        Resource: "*",
                        Condition: {
                            Null: {
                                "aws:RequestTag/elbv2.k8s.aws/cluster": "false"
                            }
                        }
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "elasticloadbalancing:CreateListener",
                            "elasticloadbalancing:DeleteListener",
                            "elasticloadbalancing:CreateRule",
                            "elasticloadbalancing:DeleteRule"
                        ],
                        Resource: "*"
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "elasticloadbalancing:AddTags",
                            "elasticloadbalancing:RemoveTags"
                        ],
                        Resource: [
                            "arn:aws:elasticloadbalancing:*:*:targetgroup/*/*",
                            "arn:aws:elasticloadbalancing:*:*:loadbalancer/net/*/*",
                            "arn:aws:elasticloadbalancing:*:*:loadbalancer/app/*/*"
                        ],
                        Condition: {
                            Null: {
                                "aws:RequestTag/elbv2.k8s.aws/cluster": "true",
                                "aws:ResourceTag/elbv2.k8s.aws/cluster": "false"
                            }
                        }
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "elasticloadbalancing:AddTags",
                            "elasticloadbalancing:RemoveTags"
                        ],
                        Resource: [
                            "arn:aws:elasticloadbalancing:*:*:listener/net/*/*/*",
                            "arn:aws:elasticloadbalancing:*:*:listener/app/*/*/*",
                            "arn:aws:elasticloadbalancing:*:*:listener-rule/net/*/*/*",
                            "arn:aws:elasticloadbalancing:*:*:listener-rule/app/*/*/*"
                        ]
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "elasticloadbalancing:ModifyLoadBalancerAttributes",
                            "elasticloadbalancing:SetIpAddressType",
                            "elasticloadbalancing:SetSecurityGroups",
                            "elasticloadbalancing:SetSubnets",
                            "elasticloadbalancing:DeleteLoadBalancer",
                            "elasticloadbalancing:ModifyTargetGroup",
                            "elasticloadbalancing:ModifyTargetGroupAttributes",
                            "elasticloadbalancing:DeleteTargetGroup",
                            "elasticloadbalancing:ModifyCapacityReservation"
                        ],
                        Resource: "*",
                        Condition: {
                            Null: {
                                "aws:ResourceTag/elbv2.k8s.aws/cluster": "false"
                            }
                        }
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "elasticloadbalancing:AddTags"
                        ],
                        Resource: [
                            "arn:aws:elasticloadbalancing:*:*:targetgroup/*/*",
                            "arn:aws:elasticloadbalancing:*:*:loadbalancer/net/*/*",
                            "arn:aws:elasticloadbalancing:*:*:loadbalancer/app/*/*"
                        ],
                        Condition: {
                            StringEquals: {
                                "elasticloadbalancing:CreateAction": [
                                    "CreateTargetGroup",
                                    "CreateLoadBalancer"
                                ]
                            },
                            Null: {
                                "aws:RequestTag/elbv2.k8s.aws/cluster": "false"
                            }
                        }
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "elasticloadbalancing:RegisterTargets",
                            "elasticloadbalancing:DeregisterTargets"
                        ],
                        Resource: "arn:aws:elasticloadbalancing:*:*:targetgroup/*/*"
                    },
                    {
                        Effect: "Allow",
                        Action: [
                            "elasticloadbalancing:SetWebAcl",
                            "elasticloadbalancing:ModifyListener",
                            "elasticloadbalancing:AddListenerCertificates",
                            "elasticloadbalancing:RemoveListenerCertificates",
                            "elasticloadbalancing:ModifyRule",
                            "elasticloadbalancing:ModifyListenerAttributes"
                        ],
                        Resource: "*"
                    }
                ]
            })),
            tags: tags,
        }, { parent: this });

        // Attach the policy to the role
        new aws.iam.RolePolicyAttachment(`${name}-policy-attachment`, {
            role: this.controllerRole.name,
            policyArn: controllerPolicy.arn,
        }, { parent: this });

        // Create Pod Identity Association
        this.podIdentityAssociation = new aws.eks.PodIdentityAssociation(`${name}-pod-identity`, {
            clusterName: args.clusterName,
            namespace: namespace,
            serviceAccount: "aws-load-balancer-controller",
            roleArn: this.controllerRole.arn,
            tags: tags,
        }, { parent: this });

        // Install AWS Load Balancer Controller via Helm
        this.helmRelease = new k8s.helm.v3.Release(`${name}-helm`, {
            name: "aws-load-balancer-controller",
            namespace: namespace,
            chart: "aws-load-balancer-controller",
            version: chartVersion,
            repositoryOpts: {
                repo: "https://aws.github.io/eks-charts",
            },
            values: {
                clusterName: args.clusterName,
                vpcId: args.vpcId,
                region: args.awsRegion,
                // Don't create service account - we use Pod Identity
                serviceAccount: {
                    create: true,
                    name: "aws-load-balancer-controller",
                    // No IRSA annotation needed - Pod Identity handles auth
                },
                // Tolerate system node taint
                tolerations: [
                    {
                        key: "CriticalAddonsOnly",
                        operator: "Exists",
                    },
                ],
                // Schedule on system nodes
                affinity: {
                    nodeAffinity: {
                        requiredDuringSchedulingIgnoredDuringExecution: {
                            nodeSelectorTerms: [{
                                matchExpressions: [{
                                    key: "node-role",
                                    operator: "In",
                                    values: ["system"],
                                }],
                            }],
                        },
                    },
                },
            },
        }, { parent: this, dependsOn: [this.podIdentityAssociation] });

        this.registerOutputs({
            controllerRoleArn: this.controllerRole.arn,
        });
    }
}
