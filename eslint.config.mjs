/**
 * Lint and format rules, after Effect's own repository (eslint.config.mjs on its v3 branch):
 * eslint's and typescript-eslint's recommended rules, Effect's dprint formatting rule with its
 * settings, and the few rules it adds. `npm run lint` checks everything, formatting included;
 * `npm run format` applies the formatting (`eslint --fix`).
 */
import * as effectEslint from "@effect/eslint-plugin"
import js from "@eslint/js"
import sortDestructureKeys from "eslint-plugin-sort-destructure-keys"
import tseslint from "typescript-eslint"

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "bench/data/**",
      "test/fixtures/**",
      "packages/*/dist/**",
      "packages/*/node_modules/**",
      "**/*.md"
    ]
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...effectEslint.configs.dprint,
  {
    plugins: { "sort-destructure-keys": sortDestructureKeys },
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: {
        process: "readonly",
        Buffer: "readonly",
        console: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        setImmediate: "readonly",
        TextDecoder: "readonly",
        TextEncoder: "readonly",
        AbortController: "readonly",
        AbortSignal: "readonly",
        structuredClone: "readonly",
        queueMicrotask: "readonly",
        performance: "readonly",
        fetch: "readonly"
      }
    },
    rules: {
      "no-fallthrough": "off",
      "no-irregular-whitespace": "off",
      "object-shorthand": "error",
      // A variable a finalizer reads before it is assigned must be a `let`.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      "prefer-destructuring": "off",
      "sort-imports": "off",
      // Effect's rule (a spread of a huge array overflows the stack); "warn" while the tree has them.
      "no-restricted-syntax": [
        "warn",
        {
          selector: "CallExpression[callee.property.name='push'] > SpreadElement.arguments",
          message: "Do not use spread arguments in Array.push"
        }
      ],
      "no-unused-vars": "off",
      "require-yield": "off",
      "prefer-rest-params": "off",
      "prefer-spread": "off",
      "sort-destructure-keys/sort-destructure-keys": "error",
      // Control characters are what our patterns are for (terminal escapes, NUL in binary sniffing).
      "no-control-regex": "off",
      "@typescript-eslint/array-type": ["warn", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-unsafe-function-type": "off",
      "@typescript-eslint/no-wrapper-object-types": "off",
      "@typescript-eslint/consistent-type-imports": "warn",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/ban-ts-comment": "off",
      "@typescript-eslint/explicit-function-return-type": "off",
      "@typescript-eslint/explicit-module-boundary-types": "off",
      "@typescript-eslint/no-array-constructor": "off",
      "@typescript-eslint/no-use-before-define": "off",
      "@typescript-eslint/no-namespace": "off",
      "@effect/dprint": [
        "error",
        {
          config: {
            indentWidth: 2,
            lineWidth: 120,
            semiColons: "asi",
            quoteStyle: "alwaysDouble",
            trailingCommas: "never",
            operatorPosition: "maintain",
            "arrowFunction.useParentheses": "force"
          }
        }
      ]
    }
  },
  {
    // CommonJS entry points (a package's `bin`: Node starts them without its ES module loader).
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { require: "readonly", module: "writable" } },
    rules: { "@typescript-eslint/no-require-imports": "off" }
  },
  {
    files: ["src/**/*.ts"],
    rules: {
      // Effect's own rule for its packages: import modules (`effect/Effect`), not the barrel.
      "@effect/no-import-from-barrel-package": ["error", {
        packageNames: ["effect", "@effect/platform", "@effect/sql"]
      }]
    }
  }
)
