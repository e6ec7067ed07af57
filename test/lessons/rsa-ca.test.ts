/**
 * Lesson rsa-ca, the whole category: a cert-manager CA Certificate with an ECDSA or Ed25519 key is caught in every form
 * that declares it and every served version; an RSA CA (named, or cert-manager's default when privateKey or its
 * algorithm is absent) and a leaf certificate of any algorithm are left alone.
 */
import { RSA_CA_MESSAGES as say, requireRsaCaCertificates as policy } from "../../policies/requireRsaCaCertificates";
import { UNKNOWN, check, kube } from "../support/harness";
import { DECLARING_FORMS } from "../support/podKinds";

describe("the rule", () => {
    const certificate = (spec: Record<string, unknown>) =>
        kube("cert-manager.io/v1", "Certificate", "ca", { metadata: { name: "ca", namespace: "cert-manager" }, spec });

    describe("require-rsa-ca-certificates", () => {
        test("passes RSA, and cert-manager's default algorithm", async () => {
            expect(await check(policy, [certificate({ isCA: true, privateKey: { algorithm: "RSA", size: 2048 } })])).toEqual([]);
            expect(await check(policy, [certificate({ isCA: true })])).toEqual([]);
        });

        test("fails an ECDSA CA", async () => {
            expect(await check(policy, [certificate({ isCA: true, privateKey: { algorithm: "ECDSA", size: 256 } })])).toEqual([
                { level: "mandatory", resource: "ca", message: "CA certificate ca has key algorithm ECDSA; KServe expects an RSA CA." },
            ]);
        });

        test("not applicable: leaf certificates", async () => {
            expect(await check(policy, [certificate({ privateKey: { algorithm: "ECDSA" } })])).toEqual([]);
        });

        test("preview: an unknown key spec is not a violation", async () => {
            expect((await check(policy, [certificate({ isCA: true, privateKey: UNKNOWN })]))[0].level).toBe("advisory");
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const certificate = (spec: Obj, apiVersion = "cert-manager.io/v1") =>
        kube(apiVersion, "Certificate", "ca", {
            metadata: { name: "kserve-ca", namespace: "cert-manager" },
            spec: { secretName: "kserve-ca", commonName: "kserve-ca", issuerRef: { name: "selfsigned", kind: "ClusterIssuer" }, ...spec },
        });

    describe("lesson rsa-ca: every way a CA certificate gets a key KServe does not expect", () => {
        describe.each(DECLARING_FORMS)("declared as %s", (_, declare) => {
            const verdict = async (spec: Obj, apiVersion?: string) =>
                (await check(policy, declare(certificate(spec, apiVersion)))).map((finding) => finding.message);

            test.each(["ECDSA", "Ed25519"])("caught: a CA with an %s key, of any size, in any version", async (algorithm) => {
                for (const apiVersion of ["cert-manager.io/v1", "cert-manager.io/v1beta1"]) {
                    expect(await verdict({ isCA: true, privateKey: { algorithm } }, apiVersion)).toEqual([
                        say.notRsa("kserve-ca", algorithm),
                    ]);
                }
                expect(await verdict({ isCA: true, privateKey: { algorithm, size: 384, rotationPolicy: "Always" } })).toEqual([
                    say.notRsa("kserve-ca", algorithm),
                ]);
            });

            test("clean: RSA named or by cert-manager's default, and leaf certificates of any algorithm", async () => {
                for (const privateKey of [undefined, {}, { size: 4096 }, { algorithm: "RSA" }, { algorithm: "RSA", size: 2048 }]) {
                    expect(await verdict({ isCA: true, ...(privateKey ? { privateKey } : {}) })).toEqual([]);
                }
                for (const algorithm of ["ECDSA", "Ed25519"]) {
                    expect(await verdict({ privateKey: { algorithm } })).toEqual([]);
                    expect(await verdict({ isCA: false, privateKey: { algorithm } })).toEqual([]);
                }
            });
        });

        test("objects of other groups named Certificate are not this lesson's", async () => {
            const other = kube("networking.gke.io/v1", "Certificate", "other", {
                metadata: { name: "other" },
                spec: { isCA: true, privateKey: { algorithm: "ECDSA" } },
            });
            expect(await check(policy, [other])).toEqual([]);
        });
    });
});
