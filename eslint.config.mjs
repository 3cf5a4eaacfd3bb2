// Lint: Next's rules (React, hooks, a11y, core web vitals) and typescript-eslint's
// type-aware recommended set; formatting is Prettier's (eslint-config-prettier
// turns off every rule that would argue with it).
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      ".next*/",
      "next-env.d.ts",
      "test-results/",
      "coverage/",
      "tests/formats-typed/must-fail/",
    ],
  },
  ...nextVitals,
  ...nextTypescript,
  {
    files: ["**/*.ts", "**/*.tsx"],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Callbacks in props and interfaces are passed around unbound: declare them as properties.
      "@typescript-eslint/method-signature-style": ["error", "property"],
      // Stores and fakes implement promise-returning interfaces with synchronous bodies.
      "@typescript-eslint/require-await": "off",
      // Forwarding a caught error or an abort signal's reason as it came is fine; inventing a non-Error is not.
      "@typescript-eslint/prefer-promise-reject-errors": [
        "error",
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // `const { omitted: _, ...rest } = value` is how a field is left out.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The local chain and the stand-in model are development infrastructure: the product never loads them (a Vercel
    // function must not load litesvm's native binary). The faucet's endpoint alone is the app's, and loads no chain.
    files: ["lib/**/*.ts", "app/**/*.ts", "app/**/*.tsx", "components/**/*.tsx", "web/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^@/(?:standin(?:/.*)?|localchain(?!/faucet-endpoint$)(?:/.*)?)$",
              message: "Development infrastructure (the local chain, the stand-in model) stays out of the product.",
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read answers as JSON and poke at them; typing every body there would
    // restate the schemas the tests exist to check. The type-aware rules about
    // promises, awaits and assertions still apply.
    files: ["tests/**/*.ts", "e2e/**/*.ts", "scripts/**/*.ts", "eval/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-explicit-any": "off",
      // Test servers are `createServer(async (req, res) => ...)`; a throw there fails the test anyway.
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false } }],
      // No React runs here: `useServices` and friends install the services a test uses, they are not hooks.
      "react-hooks/rules-of-hooks": "off",
    },
  },
  prettier,
);
