import { PolicyPack } from "@pulumi/policy";
import { PACK_NAME, policies } from "./pack";

new PolicyPack(PACK_NAME, { policies });
