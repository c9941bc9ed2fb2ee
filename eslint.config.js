// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", ".cache/", ".wrangler/", ".dev/", "dist/", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ["*.js", "cli/entry.mjs"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-unused-expressions": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      eqeqeq: ["error", "always"],
      "no-console": "off",
    },
  },
  {
    // shared/ is Web-API only so the same code runs in workerd (docs/development.md, Rules the code keeps).
    files: ["shared/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["node:*"], message: "shared/ uses Web APIs only; put Node code in functions/node." },
            { group: ["**/functions/**"], message: "shared/ never imports from functions/." },
            { group: ["**/cli/**"], message: "shared/ never imports from cli/." },
          ],
          paths: [
            {
              name: "@kubernetes/client-node",
              allowTypeImports: true,
              message: "client-node is Node-only at runtime; import type only.",
            },
          ],
        },
      ],
    },
  },
  {
    // The Node platform's kube pieces (kubeconfig files, exec spawn, HTTPS transport, credentials) live in
    // functions/node/kube; the CLI takes those and never a runtime's wiring (docs/development.md, Layout).
    files: ["cli/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "(^|/)functions/(?!node/kube/)",
              message: "cli/ imports from functions/ only the Node platform's pieces in functions/node/kube.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["functions/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["**/cli/**"], message: "functions/ never imports from cli/: the CLI is not a deployable." },
          ],
        },
      ],
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/unbound-method": "off",
    },
  },
);
