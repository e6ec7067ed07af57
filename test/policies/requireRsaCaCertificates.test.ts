import { requireRsaCaCertificates as policy } from "../../policies/requireRsaCaCertificates";
import { UNKNOWN, check, kube } from "./harness";

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
