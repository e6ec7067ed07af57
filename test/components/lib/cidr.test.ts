import { overlaps, parseCidr } from "../../../components/lib/cidr";

describe("cidr", () => {
    test("parses network addresses and finds overlaps", () => {
        const pods = parseCidr("10.4.0.0/14");
        const services = parseCidr("10.8.0.0/20");
        const inside = parseCidr("10.7.255.0/24");
        if (typeof pods === "string" || typeof services === "string" || typeof inside === "string") {
            throw new Error("expected ranges");
        }
        expect(pods).toEqual({
            cidr: "10.4.0.0/14",
            prefixLength: 14,
            first: 10 * 2 ** 24 + 4 * 2 ** 16,
            last: 10 * 2 ** 24 + 8 * 2 ** 16 - 1,
        });
        expect(overlaps(pods, services)).toBe(false);
        expect(overlaps(pods, inside)).toBe(true);
        expect(parseCidr("0.0.0.0/0")).toEqual({ cidr: "0.0.0.0/0", prefixLength: 0, first: 0, last: 2 ** 32 - 1 });
    });
});
