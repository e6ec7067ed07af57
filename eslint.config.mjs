// Typed linting: the Pulumi rules need type information to tell an Output from a string.
import pulumi from "@pulumi/eslint-plugin";
import tseslint from "typescript-eslint";

export default tseslint.config(
    {
        // test/corpus/programs/: public programs vendored as their authors wrote them.
        ignores: ["node_modules/", "bin/", "policies/node_modules/", "policies/bin/", ".shared/", "test/corpus/programs/"],
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
    {
        // The few CommonJS files: preloads Node runs with -r, and test stand-ins jest maps modules to.
        files: ["**/*.js"],
        languageOptions: { sourceType: "commonjs" },
        rules: { "@typescript-eslint/no-require-imports": "off" },
    },
);
