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
  },
  {
    // Tests read answers as JSON and poke at them; typing every body there would
    // restate the schemas the tests exist to check. The type-aware rules about
    // promises, awaits and assertions still apply.
    files: ["tests/**", "e2e/**", "scripts/**", "eval/**"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  prettier,
);
