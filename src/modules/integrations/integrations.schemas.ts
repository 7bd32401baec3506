import { Type, type Static } from '@sinclair/typebox';
import { Data, List } from '../../http/schemas.js';
import { ApiStyle, ReadMethods } from '../vault/vault.schemas.js';
import { HTTP_METHODS } from './integrations.catalogue.js';

const Source = Type.Union([Type.Literal('catalogue'), Type.Literal('connector'), Type.Literal('discovered')], {
  description: 'catalogue: built into Hearth; connector: defined by the owner (POST /connectors); discovered: found on the website of a vault token stored with discoverApi',
});
const AuthKind = Type.Union(['oauth', 'bearer', 'header', 'query', 'none'].map((k) => Type.Literal(k)), {
  description: "How the service's credential travels",
});
const HttpMethod = Type.Union(HTTP_METHODS.map((m) => Type.Literal(m)), { description: `The HTTP method to send: ${HTTP_METHODS.join(', ')}` });

/**
 * One path parameter names the service in every route under /services (Fastify allows one
 * name per position): the specification writes it {name}, {serviceId}, {serviceName} and
 * {service}; all are the same value, a catalogue id, a connector name or a discovered API.
 */
export const ServiceParams = Type.Object({
  service: Type.String({ minLength: 1, maxLength: 100, description: 'A built-in service id (github), a connector name or a discovered API name' }),
});
export const PassthroughParams = Type.Object({
  service: ServiceParams.properties.service,
  '*': Type.String({ description: "The path on the service, relative to its base address" }),
});

export const ServiceSummarySchema = Type.Object(
  {
    id: Type.String({ description: 'The name to use in /services/{service}/…' }),
    name: Type.String(),
    description: Type.String(),
    category: Type.String(),
    source: Source,
    authKind: AuthKind,
    connected: Type.Boolean({ description: 'Whether the owner has a credential for it (an OAuth connection or a vault token), or it needs none' }),
    methodsCount: Type.Integer({ description: 'Named methods plus the generic `request`' }),
  },
  { title: 'Service' },
);

export const ListServicesQuery = Type.Object({
  category: Type.Optional(Type.String({ maxLength: 100, description: 'Only services of this category (GET /services/categories)' })),
  source: Type.Optional(Source),
  connected: Type.Optional(Type.Boolean({ description: 'Only connected (true) or unconnected (false) services' })),
});

export const CategorySchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    count: Type.Integer({ description: "How many of the owner's services are in it" }),
  },
  { title: 'ServiceCategory' },
);

const MethodSummaryFields = {
  name: Type.String({ description: 'The `method` of POST /services/{service}/execute' }),
  description: Type.String(),
  httpMethod: Type.Union([HttpMethod, Type.Null()], { description: 'Null for `request`, whose params name it' }),
  path: Type.Union([Type.String(), Type.Null()], { description: 'Relative to the base address, with {placeholders}; null for `request`' }),
};

export const ServiceDetailSchema = Type.Object(
  {
    ...ServiceSummarySchema.properties,
    baseUrl: Type.String(),
    docsUrl: Type.Union([Type.String(), Type.Null()]),
    auth: Type.Object({
      kind: AuthKind,
      provider: Type.Optional(Type.String({ description: 'The OAuth provider (kind oauth)' })),
      headerName: Type.Optional(Type.String({ description: 'The header the credential occupies (kind header)' })),
      param: Type.Optional(Type.String({ description: 'The query parameter the credential occupies (kind query)' })),
    }),
    connect: Type.Object({
      how: Type.String({ description: 'How the owner provides the credential' }),
      oauthAuthorize: Type.Union([Type.String(), Type.Null()]),
      vaultService: Type.Union([Type.String(), Type.Null()], { description: 'The `service` to store a vault token under' }),
    }),
    apiStyle: ApiStyle,
    readMethods: { ...ReadMethods, description: 'For an rpc service, the methods that only read (a GET of another method needs services:write); empty for rest' },
    methods: Type.Array(Type.Object(MethodSummaryFields)),
  },
  { title: 'ServiceDetail' },
);

export const MethodSchema = Type.Object(
  { ...MethodSummaryFields, params: Type.Unknown({ description: 'JSON Schema of the params object of execute' }) },
  { title: 'ServiceMethod' },
);

export const ExecuteBody = Type.Object(
  {
    method: Type.String({ minLength: 1, maxLength: 200, description: 'A method name from GET /services/{service}/methods, or `request`' }),
    params: Type.Optional(Type.Object({}, { additionalProperties: true, description: "The method's params, checked against its schema" })),
  },
  { additionalProperties: false },
);

const QueryValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]))]);

export const ProxyBody = Type.Object(
  {
    method: HttpMethod,
    path: Type.String({ minLength: 1, maxLength: 4096, description: "Relative to the service's base address, e.g. /user/repos; never an absolute address" }),
    query: Type.Optional(Type.Record(Type.String(), QueryValue, { description: 'Query parameters; arrays repeat the parameter' })),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'Extra request headers: content negotiation, conditional, x-* and *-version headers. Credential, routing and cookie headers are refused (400); Hearth attaches the credential',
      }),
    ),
    body: Type.Optional(Type.Unknown({ description: 'JSON body; a string with a non-JSON Content-Type is sent as it is' })),
  },
  { additionalProperties: false },
);

export const CallResultSchema = Type.Object(
  {
    status: Type.Integer({ description: "The service's HTTP status; 4xx and 5xx are the service's answer, not Hearth's" }),
    headers: Type.Record(Type.String(), Type.String(), { description: 'Safe response headers (never Set-Cookie or credentials); redirects carry location' }),
    body: Type.Unknown({ description: 'Parsed JSON, text, base64 for binary, or null when empty (see encoding)' }),
    encoding: Type.Union([Type.Literal('json'), Type.Literal('text'), Type.Literal('base64'), Type.Literal('empty')]),
  },
  { title: 'ServiceCallResult' },
);

export const ServiceList = List(ServiceSummarySchema);
export const CategoryList = List(CategorySchema);
export const ServiceDetailResponse = Data(ServiceDetailSchema);
export const MethodList = List(MethodSchema);
export const CallResultResponse = Data(CallResultSchema);

export type ServiceSummary = Static<typeof ServiceSummarySchema>;
export type ServiceDetail = Static<typeof ServiceDetailSchema>;
export type MethodSummary = Static<typeof MethodSchema>;
export type ServiceCategory = Static<typeof CategorySchema>;
export type ProxyInput = Static<typeof ProxyBody>;
