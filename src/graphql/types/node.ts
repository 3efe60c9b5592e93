/** The Relay `Node` interface: anything addressable by an opaque global id. */
import { Field, ID, InterfaceType } from 'type-graphql';

@InterfaceType('Node', {
  description: 'An object with an opaque global id, fetchable with `node(id:)`.',
  // Models are plain objects tagged with their type name (cheaper than class instances).
  resolveType: (value: { __typename: string }) => value.__typename,
})
export abstract class NodeInterface {
  // Declared here once: each implementing type gets this field and declares only the property.
  @Field(() => ID, { description: 'Opaque global id.' })
  id!: string;
}
