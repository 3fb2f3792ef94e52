use super::*;

#[test]
fn world_events_come_back_from_the_network_list_as_they_went_in() {
    let events = [
        WorldEvent::Timer(7, TimerKind::Rto, 3),
        WorldEvent::Timer(u32::MAX, TimerKind::DelayedAck, u32::MAX),
        WorldEvent::Timer(0, TimerKind::Shim(0), 1),
        WorldEvent::Timer(2, TimerKind::Shim(u8::MAX), 9),
        WorldEvent::AppStart(1),
        WorldEvent::AppStop(4),
        WorldEvent::SourceTick(5),
        WorldEvent::Sample,
    ];
    for event in events {
        let Event::Upper(upper) = Event::from(event) else {
            panic!("{event:?} is not an upper event");
        };
        assert_eq!(WorldEvent::of(upper), Some(event));
    }
    let stray = UpperEvent {
        flow: 0,
        generation: 0,
        what: 99,
    };
    assert_eq!(WorldEvent::of(stray), None);
}

#[test]
fn an_event_is_no_bigger_than_before_the_world_s_were_wrapped() {
    // The list stores events inline: 24 bytes, as when the world's were variants of their own.
    assert!(std::mem::size_of::<Event>() <= 24);
}
