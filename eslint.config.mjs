// Typed linting: the Pulumi rules need type information to tell an Output from a string.
import pulumi from "@pulumi/eslint-plugin";
import tseslint from "typescript-eslint";

export default tseslint.config(
    {
        ignores: [
            "node_modules/",
            "bin/",
            "policies/node_modules/",
            "policies/bin/",
            "scripts/ts-hook.js",
            "scripts/offline/pack-compile-cache.js",
            "jest.config.js",
        ],
    },
    ...tseslint.configs.recommended,
    {
        files: ["**/*.ts"],
        languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
        plugins: { "@pulumi": pulumi },
        rules: {
            "@pulumi/no-output-in-template-literal": "error",
            "@pulumi/no-output-instance-in-template-literal": "error",
            "@typescript-eslint/no-floating-promises": "error",
            "@typescript-eslint/no-require-imports": "off",
        },
    },
);
