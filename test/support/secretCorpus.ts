/**
 * Realistic files holding secrets (env files, shell scripts, CI configs, JSON/YAML/properties/XML
 * configs, code, docs, credential files), each with what masking must show of it. Every value here
 * is made up.
 */
export interface CorpusFile {
  readonly name: string
  readonly text: string
  readonly masked: string
  /** The secret values in the text: none may survive masking. */
  readonly secrets: ReadonlyArray<string>
}

export const corpus: ReadonlyArray<CorpusFile> = [
  {
    name: ".env",
    text: [
      "# Local settings",
      "export NODE_ENV=development",
      "PORT=3000",
      "DATABASE_URL=postgres://app:Tr0ub4dor3@db.internal:5432/app",
      "REDIS_URL=redis://localhost:6379/0",
      "STRIPE_SECRET_KEY=sk_live_51HxYzAbCdEfGhIjKlMnOpQr",
      "SESSION_SECRET='change this to something long'",
      "OPENAI_API_KEY=\"sk-proj-AbCdEf0123456789GhIjKl_mnOpQrStUv\"",
      "SENTRY_DSN=",
      "GITHUB_TOKEN=${GH_TOKEN}",
      "JWT_SECRET=7f3a9c2e4b1d8f6a0c5e2b9d7a4f1c3e # rotated monthly",
      "SMTP_PASS=mailpass-2024",
      "LOG_LEVEL=debug"
    ].join("\n"),
    masked: [
      "# Local settings",
      "export NODE_ENV=development",
      "PORT=3000",
      "DATABASE_URL=postgres://app:‹secret: password›@db.internal:5432/app",
      "REDIS_URL=redis://localhost:6379/0",
      "STRIPE_SECRET_KEY=‹secret: Stripe key›",
      "SESSION_SECRET='‹secret: secret›'",
      "OPENAI_API_KEY=\"‹secret: OpenAI key›\"",
      "SENTRY_DSN=",
      "GITHUB_TOKEN=${GH_TOKEN}",
      "JWT_SECRET=‹secret: secret› # rotated monthly",
      "SMTP_PASS=‹secret: password›",
      "LOG_LEVEL=debug"
    ].join("\n"),
    secrets: [
      "Tr0ub4dor3",
      "sk_live_51HxYzAbCdEfGhIjKlMnOpQr",
      "change this to something long",
      "sk-proj-AbCdEf0123456789GhIjKl_mnOpQrStUv",
      "7f3a9c2e4b1d8f6a0c5e2b9d7a4f1c3e",
      "mailpass-2024"
    ]
  },
  {
    name: "deploy.sh",
    text: [
      "#!/usr/bin/env bash",
      "set -euo pipefail",
      "export AWS_ACCESS_KEY_ID=AKIAZ7Q3R5T6Y8U9I0PL",
      "export AWS_SECRET_ACCESS_KEY=2Vx8Kq9Lm3Np7Rs4Tu6Wy1Za5Bc0De2Fg8Hj3Kl9",
      "curl -fsS -H \"Authorization: Bearer $API_TOKEN\" https://api.example.com/deploy",
      "curl -fsS -H 'Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0' https://hooks.example.com",
      "docker login ghcr.io -u deployer -p \"$REGISTRY_PASSWORD\"",
      "GITHUB_TOKEN=ghp_R4nd0mT0k3nV4lu3F0rT3st1ng0123456789 ./scripts/release.sh",
      "echo \"deployed $(git rev-parse --short HEAD)\""
    ].join("\n"),
    masked: [
      "#!/usr/bin/env bash",
      "set -euo pipefail",
      "export AWS_ACCESS_KEY_ID=‹secret: AWS access key ID›",
      "export AWS_SECRET_ACCESS_KEY=‹secret: key›",
      "curl -fsS -H \"Authorization: Bearer $API_TOKEN\" https://api.example.com/deploy",
      "curl -fsS -H 'Authorization: Bearer ‹secret: bearer token›' https://hooks.example.com",
      "docker login ghcr.io -u deployer -p \"$REGISTRY_PASSWORD\"",
      "GITHUB_TOKEN=‹secret: GitHub token› ./scripts/release.sh",
      "echo \"deployed $(git rev-parse --short HEAD)\""
    ].join("\n"),
    secrets: [
      "AKIAZ7Q3R5T6Y8U9I0PL",
      "2Vx8Kq9Lm3Np7Rs4Tu6Wy1Za5Bc0De2Fg8Hj3Kl9",
      "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
      "ghp_R4nd0mT0k3nV4lu3F0rT3st1ng0123456789"
    ]
  },
  {
    name: ".github/workflows/ci.yml",
    text: [
      "name: ci",
      "on: [push]",
      "permissions:",
      "  contents: read",
      "  id-token: write",
      "jobs:",
      "  test:",
      "    runs-on: ubuntu-latest",
      "    env:",
      "      NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
      "      SLACK_WEBHOOK: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
      "      DB_PASSWORD: ci-only-Pa55word",
      "    steps:",
      "      - uses: actions/checkout@v4",
      "      - run: npm ci",
      "      - run: npm test"
    ].join("\n"),
    masked: [
      "name: ci",
      "on: [push]",
      "permissions:",
      "  contents: read",
      "  id-token: write",
      "jobs:",
      "  test:",
      "    runs-on: ubuntu-latest",
      "    env:",
      "      NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
      "      SLACK_WEBHOOK: https://hooks.slack.com/services/‹secret: Slack webhook›",
      "      DB_PASSWORD: ‹secret: password›",
      "    steps:",
      "      - uses: actions/checkout@v4",
      "      - run: npm ci",
      "      - run: npm test"
    ].join("\n"),
    secrets: ["XXXXXXXXXXXXXXXXXXXXXXXX", "ci-only-Pa55word"]
  },
  {
    name: "config.json",
    text: [
      "{",
      "  \"port\": 5432,",
      "  \"apiKey\": \"AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW\",",
      "  \"oauth\": { \"client_id\": \"1234567890-abc.apps.googleusercontent.com\", \"client_secret\": \"GOCSPX-Ab12Cd34Ef56Gh78Ij90KlMn\" },",
      "  \"database\": { \"user\": \"app\", \"password\": \"s3cr3t!Pass\" },",
      "  \"paginator\": { \"input_token\": \"NextToken\", \"output_token\": \"NextToken\" },",
      "  \"passwordMinLength\": 12,",
      "  \"tokenUrl\": \"https://oauth2.googleapis.com/token\"",
      "}"
    ].join("\n"),
    masked: [
      "{",
      "  \"port\": 5432,",
      "  \"apiKey\": \"‹secret: Google API key›\",",
      "  \"oauth\": { \"client_id\": \"1234567890-abc.apps.googleusercontent.com\", \"client_secret\": \"‹secret: secret›\" },",
      "  \"database\": { \"user\": \"app\", \"password\": \"‹secret: password›\" },",
      "  \"paginator\": { \"input_token\": \"NextToken\", \"output_token\": \"NextToken\" },",
      "  \"passwordMinLength\": 12,",
      "  \"tokenUrl\": \"https://oauth2.googleapis.com/token\"",
      "}"
    ].join("\n"),
    secrets: ["AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "GOCSPX-Ab12Cd34Ef56Gh78Ij90KlMn", "s3cr3t!Pass"]
  },
  {
    name: "service-account.json",
    text: [
      "{",
      "  \"type\": \"service_account\",",
      "  \"project_id\": \"demo-project\",",
      "  \"private_key_id\": \"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678\",",
      "  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\\n-----END PRIVATE KEY-----\\n\",",
      "  \"client_email\": \"deploy@demo-project.iam.gserviceaccount.com\"",
      "}"
    ].join("\n"),
    masked: [
      "{",
      "  \"type\": \"service_account\",",
      "  \"project_id\": \"demo-project\",",
      "  \"private_key_id\": \"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678\",",
      "  \"private_key\": \"-----BEGIN PRIVATE KEY-----‹secret: private key›-----END PRIVATE KEY-----\\n\",",
      "  \"client_email\": \"deploy@demo-project.iam.gserviceaccount.com\"",
      "}"
    ].join("\n"),
    secrets: ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"]
  },
  {
    name: "docker-compose.yml",
    text: [
      "services:",
      "  db:",
      "    image: postgres:16",
      "    environment:",
      "      POSTGRES_PASSWORD: example123",
      "      POSTGRES_USER: app",
      "  api:",
      "    environment:",
      "      - API_TOKEN=tok_9aF3kL2mQ7xZ1pR8",
      "      - LOG_LEVEL=info"
    ].join("\n"),
    masked: [
      "services:",
      "  db:",
      "    image: postgres:16",
      "    environment:",
      "      POSTGRES_PASSWORD: ‹secret: password›",
      "      POSTGRES_USER: app",
      "  api:",
      "    environment:",
      "      - API_TOKEN=‹secret: token›",
      "      - LOG_LEVEL=info"
    ].join("\n"),
    secrets: ["example123", "tok_9aF3kL2mQ7xZ1pR8"]
  },
  {
    name: "kubeconfig.yaml",
    text: [
      "apiVersion: v1",
      "kind: Config",
      "users:",
      "- name: admin",
      "  user:",
      "    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",
      "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=",
      "    token: eyJhbGciOiJSUzI1NiIsImtpZCI6IiJ9.eyJpc3MiOiJrdWJlcm5ldGVzIn0.c2lnbmF0dXJl"
    ].join("\n"),
    masked: [
      "apiVersion: v1",
      "kind: Config",
      "users:",
      "- name: admin",
      "  user:",
      "    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",
      "    client-key-data: ‹secret: key›",
      "    token: ‹secret: JWT›"
    ].join("\n"),
    secrets: ["LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=", "eyJhbGciOiJSUzI1NiIsImtpZCI6IiJ9"]
  },
  {
    name: "application.properties",
    text: [
      "server.port=8080",
      "spring.datasource.url=jdbc:postgresql://localhost:5432/app",
      "spring.datasource.username=app",
      "spring.datasource.password=Spr1ng-s3cret",
      "jwt.secret=c2VjcmV0LWtleS1mb3Itand0LXNpZ25pbmc=",
      "management.endpoints.web.exposure.include=health"
    ].join("\n"),
    masked: [
      "server.port=8080",
      "spring.datasource.url=jdbc:postgresql://localhost:5432/app",
      "spring.datasource.username=app",
      "spring.datasource.password=‹secret: password›",
      "jwt.secret=‹secret: secret›",
      "management.endpoints.web.exposure.include=health"
    ].join("\n"),
    secrets: ["Spr1ng-s3cret", "c2VjcmV0LWtleS1mb3Itand0LXNpZ25pbmc="]
  },
  {
    name: "settings.xml",
    text: [
      "<settings>",
      "  <servers>",
      "    <server>",
      "      <id>releases</id>",
      "      <username>deployer</username>",
      "      <password>mvn-Rel3ase!</password>",
      "    </server>",
      "  </servers>",
      "</settings>"
    ].join("\n"),
    masked: [
      "<settings>",
      "  <servers>",
      "    <server>",
      "      <id>releases</id>",
      "      <username>deployer</username>",
      "      <password>‹secret: password›</password>",
      "    </server>",
      "  </servers>",
      "</settings>"
    ].join("\n"),
    secrets: ["mvn-Rel3ase!"]
  },
  {
    name: "app.py",
    text: [
      "import os",
      "import openai",
      "",
      "openai.api_key = \"sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa\"",
      "password = os.environ[\"DB_PASSWORD\"]",
      "API_KEY = os.getenv(\"API_KEY\")",
      "def connect(password: str, token=None):",
      "    return db.connect(password=password, token=token)"
    ].join("\n"),
    masked: [
      "import os",
      "import openai",
      "",
      "openai.api_key = \"‹secret: Anthropic key›\"",
      "password = os.environ[\"DB_PASSWORD\"]",
      "API_KEY = os.getenv(\"API_KEY\")",
      "def connect(password: str, token=None):",
      "    return db.connect(password=password, token=token)"
    ].join("\n"),
    secrets: ["sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"]
  },
  {
    name: "server.ts",
    text: [
      "const PASSWORD_FIELD = \"password\"",
      "const TOKEN_KEY = \"auth_token\"",
      "interface Login { username: string; password: string }",
      "const headers = { Authorization: `Bearer ${token}` }",
      "export const secret = process.env.SECRET ?? \"\"",
      "const webhook = \"https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/abcdefghijklmnopqrstuvwx\"",
      "const testKey = \"xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx\""
    ].join("\n"),
    masked: [
      "const PASSWORD_FIELD = \"password\"",
      "const TOKEN_KEY = \"auth_token\"",
      "interface Login { username: string; password: string }",
      "const headers = { Authorization: `Bearer ${token}` }",
      "export const secret = process.env.SECRET ?? \"\"",
      "const webhook = \"https://hooks.slack.com/services/‹secret: Slack webhook›\"",
      "const testKey = \"‹secret: Slack token›\""
    ].join("\n"),
    secrets: ["abcdefghijklmnopqrstuvwx", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"]
  },
  {
    name: "README.md",
    text: [
      "# Setup",
      "",
      "Copy `.env.example` to `.env` and set `API_KEY=your-key-here`.",
      "Then run `export GITHUB_TOKEN=<token>` and start the server.",
      "The password must be at least 12 characters.",
      "-----BEGIN RSA PRIVATE KEY-----",
      "MIIEowIBAAKCAQEAvXj1Vq3m9Qm5nF6pX2zY8c1w0R7t4K9sL3jH2gF5dS6aQ1eW",
      "q8rT0yU3iO9pL2kJ7hG4fD1sA6zX5cV8bN3mQ0wE9rT2yU7iO4pL1kJ8hG5fD2s==",
      "-----END RSA PRIVATE KEY-----",
      "That key is an example only."
    ].join("\n"),
    masked: [
      "# Setup",
      "",
      "Copy `.env.example` to `.env` and set `API_KEY=your-key-here`.",
      "Then run `export GITHUB_TOKEN=<token>` and start the server.",
      "The password must be at least 12 characters.",
      "-----BEGIN RSA PRIVATE KEY-----",
      "‹secret: private key›",
      "‹secret: private key›",
      "-----END RSA PRIVATE KEY-----",
      "That key is an example only."
    ].join("\n"),
    secrets: [
      "MIIEowIBAAKCAQEAvXj1Vq3m9Qm5nF6pX2zY8c1w0R7t4K9sL3jH2gF5dS6aQ1eW",
      "q8rT0yU3iO9pL2kJ7hG4fD1sA6zX5cV8bN3mQ0wE9rT2yU7iO4pL1kJ8hG5fD2s=="
    ]
  },
  {
    name: ".npmrc",
    text: [
      "registry=https://registry.npmjs.org/",
      "//registry.npmjs.org/:_authToken=npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0UvWxYz",
      "//npm.pkg.github.com/:_authToken=${GITHUB_TOKEN}",
      "save-exact=true"
    ].join("\n"),
    masked: [
      "registry=https://registry.npmjs.org/",
      "//registry.npmjs.org/:_authToken=‹secret: npm token›",
      "//npm.pkg.github.com/:_authToken=${GITHUB_TOKEN}",
      "save-exact=true"
    ].join("\n"),
    secrets: ["npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0UvWxYz"]
  },
  {
    name: ".netrc",
    text: [
      "machine api.heroku.com",
      "  login me@example.com",
      "  password 01234567-89ab-cdef-0123-456789abcdef",
      ""
    ].join("\n"),
    masked: [
      "machine api.heroku.com",
      "  login me@example.com",
      "  password ‹secret: password›",
      ""
    ].join("\n"),
    secrets: ["01234567-89ab-cdef-0123-456789abcdef"]
  },
  {
    name: ".pgpass",
    text: [
      "# host:port:db:user:password",
      "db.internal:5432:app:app:pg-Pa55w0rd",
      ""
    ].join("\n"),
    masked: [
      "# host:port:db:user:password",
      "db.internal:5432:app:app:‹secret: password›",
      ""
    ].join("\n"),
    secrets: ["pg-Pa55w0rd"]
  }
]
